(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["14"]={"14":"6"};
