(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sy"]={"system":"6"};
