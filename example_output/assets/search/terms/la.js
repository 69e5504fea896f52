(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["la"]={"last":"0"};
