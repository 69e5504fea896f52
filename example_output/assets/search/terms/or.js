(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["or"]={"or":"6"};
