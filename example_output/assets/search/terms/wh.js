(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wh"]={"when":"3","where":"1,3","which":"5","while":"9"};
