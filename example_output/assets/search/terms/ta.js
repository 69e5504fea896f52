(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ta"]={"task":"0,4,6,9","tasked":"4","tasks":"4"};
