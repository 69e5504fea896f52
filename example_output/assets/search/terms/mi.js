(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["mi"]={"mistakes":"9"};
