(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["is"]={"is":"1,3,5,6,9,a"};
