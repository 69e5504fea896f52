(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ma"]={"make":"7","manual":"c","many":"6"};
