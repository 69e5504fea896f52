(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["10"]={"10":"6","1001":"4"};
