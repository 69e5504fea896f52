(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["nr"]={"nr":"4","nrows":"0"};
