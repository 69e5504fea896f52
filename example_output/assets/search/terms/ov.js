(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ov"]={"overloaded":"9"};
