(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ta"]={"task":"0,3,6"};
