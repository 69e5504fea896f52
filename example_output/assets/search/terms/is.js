(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["is"]={"is":"1,3,6,7"};
