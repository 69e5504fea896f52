(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ap"]={"api":"6","applied":"1,3","apply":"4"};
