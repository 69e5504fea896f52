(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sa"]={"sales":"2","save":"6,7","saved":"4,6,7","saving":"6"};
