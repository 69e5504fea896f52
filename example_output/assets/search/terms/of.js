(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["of"]={"of":"0,3,4,9"};
