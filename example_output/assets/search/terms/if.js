(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["if"]={"if":"0,3,9"};
