(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["20"]={"200000":"3","20261201":"0"};
