(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["du"]={"duplicate":"4"};
