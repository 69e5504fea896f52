(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["11"]={"11":"4,6"};
