(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["88"]={"883":"4"};
