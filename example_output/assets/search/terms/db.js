(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["db"]={"db":"3"};
