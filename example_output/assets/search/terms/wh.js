(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wh"]={"where":"1","while":"6"};
