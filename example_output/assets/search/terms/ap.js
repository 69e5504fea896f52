(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ap"]={"api":"9","apostrophe":"5","app":"4","applied":"1,6","apply":"7"};
