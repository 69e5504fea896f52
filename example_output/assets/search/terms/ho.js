(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ho"]={"home":"3,4,6"};
