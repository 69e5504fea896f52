(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["na"]={"name":"6","names":"5"};
