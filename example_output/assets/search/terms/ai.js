(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ai"]={"ai":"6,7"};
