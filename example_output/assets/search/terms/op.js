(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["op"]={"open":"0","operator":"9,a"};
