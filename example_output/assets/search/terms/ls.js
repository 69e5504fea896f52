(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ls"]={"ls":"6"};
