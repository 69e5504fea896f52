(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["aw"]={"awk":"4"};
