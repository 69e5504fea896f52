(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ma"]={"make":"3","manual":"6"};
