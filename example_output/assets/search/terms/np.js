(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["np"]={"nprint":"0"};
