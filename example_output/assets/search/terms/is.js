(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["is"]={"is":"1,4,6,7,9,c,d"};
