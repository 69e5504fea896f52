(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ou"]={"out":"9","output":"9","outputs":"1"};
