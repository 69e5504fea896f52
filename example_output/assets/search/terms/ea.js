(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ea"]={"each":"4"};
