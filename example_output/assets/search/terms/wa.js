(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wa"]={"want":"5","was":"0"};
