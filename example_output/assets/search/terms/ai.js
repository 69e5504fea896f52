(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ai"]={"ai":"4,6"};
