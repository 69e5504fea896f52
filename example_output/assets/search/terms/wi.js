(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wi"]={"will":"1","with":"1,3,6","without":"3"};
