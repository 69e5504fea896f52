(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cr"]={"created":"c"};
