(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ra"]={"ran":"3,6"};
