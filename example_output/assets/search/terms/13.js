(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["13"]={"13":"6"};
