(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ap"]={"api":"1,c","applied":"4,7,f","apply":"a"};
