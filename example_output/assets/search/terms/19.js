(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["19"]={"19":"6"};
