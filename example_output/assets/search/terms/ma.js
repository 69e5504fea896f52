(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ma"]={"make":"5,6","makes":"3","manual":"9","mark":"4","marked":"4"};
