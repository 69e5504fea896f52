(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["we"]={"were":"9"};
