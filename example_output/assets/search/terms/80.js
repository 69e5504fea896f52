(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["80"]={"80":"0,1","800":"9"};
