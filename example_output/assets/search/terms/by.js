(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["by"]={"by":"0,6,9"};
