(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ty"]={"type":"9"};
