(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["00"]={"00":"6","000002":"0"};
