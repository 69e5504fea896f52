(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wa"]={"warmup":"e","was":"8","water":"6"};
