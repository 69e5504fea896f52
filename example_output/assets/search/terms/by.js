(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["by"]={"by":"1,2,6,7,c"};
