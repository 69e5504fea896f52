(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["02"]={"02s":"9"};
