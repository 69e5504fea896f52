(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sa"]={"sales":"0","save":"3","saved":"3"};
