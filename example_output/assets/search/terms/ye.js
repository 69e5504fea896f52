(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ye"]={"yes":"c"};
