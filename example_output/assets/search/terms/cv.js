(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cv"]={"cv":"6"};
