(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["id"]={"idea":"3"};
