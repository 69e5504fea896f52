(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["qu"]={"question":"0"};
