(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["nf"]={"nfkd":"5"};
