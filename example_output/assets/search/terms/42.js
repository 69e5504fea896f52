(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["42"]={"4242":"4"};
