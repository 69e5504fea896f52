(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["bi"]={"bike":"6","bill":"6"};
