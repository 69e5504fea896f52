(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sn"]={"snippet":"9"};
