(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["00"]={"00":"3","000002":"0"};
