(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["nr"]={"nrows":"0"};
