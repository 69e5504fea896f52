(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["gi"]={"given":"6"};
