(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["rm"]={"rm":"8"};
