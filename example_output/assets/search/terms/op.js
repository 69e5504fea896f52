(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["op"]={"open":"0,2,9","operator":"c,d"};
