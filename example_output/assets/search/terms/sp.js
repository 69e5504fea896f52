(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sp"]={"spawn":"1","spelling":"5"};
