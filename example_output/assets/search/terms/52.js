(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["52"]={"529":"9"};
