(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ye"]={"yes":"0,9"};
