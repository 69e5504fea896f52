(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wi"]={"will":"1,5","with":"1,4,6,9","without":"3,6"};
