(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["on"]={"on":"6","once":"3","one":"0","only":"3"};
