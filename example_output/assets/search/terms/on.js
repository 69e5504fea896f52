(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["on"]={"on":"9","once":"6","one":"0,3,4","only":"6"};
