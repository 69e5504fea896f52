(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["48"]={"480":"0,1"};
