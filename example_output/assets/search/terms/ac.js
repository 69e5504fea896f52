(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ac"]={"action":"0","activeform":"6"};
