(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ol"]={"old":"6,f","older":"4"};
