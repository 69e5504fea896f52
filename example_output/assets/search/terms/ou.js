(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ou"]={"out":"6","output":"6","outputs":"1"};
