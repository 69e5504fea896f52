(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ig"]={"ignore":"5"};
