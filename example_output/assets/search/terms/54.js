(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["54"]={"5432":"9"};
