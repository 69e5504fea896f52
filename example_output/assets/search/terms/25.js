(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["25"]={"256":"0"};
