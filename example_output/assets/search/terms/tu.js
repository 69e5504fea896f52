(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["tu"]={"turn":"4"};
