(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["on"]={"on":"c","once":"7","one":"2,6","only":"7,f,g"};
