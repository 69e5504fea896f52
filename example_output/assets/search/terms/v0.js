(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["v0"]={"v0":"6"};
