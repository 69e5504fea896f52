(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ei"]={"either":"5"};
