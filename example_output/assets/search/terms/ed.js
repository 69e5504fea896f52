(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ed"]={"edit":"1,3,6,9","edited":"9"};
