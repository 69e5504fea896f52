(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["si"]={"sign":"9"};
