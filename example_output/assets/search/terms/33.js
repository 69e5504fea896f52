(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["33"]={"33":"4"};
