(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["or"]={"or":"5,9","order":"3,4","orders":"3,4"};
