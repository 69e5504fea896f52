(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ac"]={"access":"0","action":"0,1,2","activeform":"c"};
