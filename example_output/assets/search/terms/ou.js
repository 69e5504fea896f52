(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ou"]={"out":"0,c","output":"0,1,c","outputs":"4","outside":"6"};
