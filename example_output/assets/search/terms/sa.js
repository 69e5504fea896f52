(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sa"]={"sales":"0","same":"4","save":"6","saved":"6"};
