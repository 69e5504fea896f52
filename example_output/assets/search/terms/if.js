(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["if"]={"if":"2,6,c"};
