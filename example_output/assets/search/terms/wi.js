(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wi"]={"will":"4","with":"4,6,7,c,f","without":"7"};
