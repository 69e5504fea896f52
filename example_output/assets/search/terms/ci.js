(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ci"]={"ci":"9"};
