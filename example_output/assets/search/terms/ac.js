(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ac"]={"accents":"5","action":"0","activeform":"9"};
