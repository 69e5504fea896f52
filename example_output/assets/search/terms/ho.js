(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ho"]={"home":"3,5,6,7,9"};
