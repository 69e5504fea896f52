(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["gu"]={"gutters":"6"};
