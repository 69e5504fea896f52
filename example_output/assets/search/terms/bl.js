(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["bl"]={"blog":"5"};
