(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["10"]={"10":"3"};
