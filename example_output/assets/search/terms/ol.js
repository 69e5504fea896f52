(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ol"]={"old":"5","older":"1,5"};
