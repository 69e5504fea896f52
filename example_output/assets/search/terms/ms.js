(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ms"]={"ms":"0,1"};
