(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wa"]={"was":"0"};
