(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["na"]={"name":"3"};
