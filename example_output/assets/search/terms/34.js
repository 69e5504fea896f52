(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["34"]={"3400":"0"};
