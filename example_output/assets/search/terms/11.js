(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["11"]={"119":"4"};
