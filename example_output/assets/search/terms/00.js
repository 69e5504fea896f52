(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["00"]={"00":"4,7"};
