(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["af"]={"after":"4"};
