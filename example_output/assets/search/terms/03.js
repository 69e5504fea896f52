(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["03"]={"03s":"5"};
