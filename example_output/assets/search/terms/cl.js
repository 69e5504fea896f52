(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cl"]={"claude":"6","clean":"4"};
