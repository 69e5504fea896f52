(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["la"]={"label":"4","laptop":"6","last":"0,2","latencies":"1","latency":"0"};
