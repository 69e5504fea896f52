(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["20"]={"200000":"6","20261201":"0"};
