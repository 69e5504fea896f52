(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ls"]={"ls":"7,8,9"};
