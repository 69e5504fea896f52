(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["or"]={"or":"6,8,c","order":"6","original":"7"};
