(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["80"]={"80":"2,4","800":"c"};
