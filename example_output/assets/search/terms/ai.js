(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ai"]={"ai":"3"};
