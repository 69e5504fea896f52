(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["nu"]={"nudge":"6","number":"6","numbers":"6"};
