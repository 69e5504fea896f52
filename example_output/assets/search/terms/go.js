(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["go"]={"go":"3"};
