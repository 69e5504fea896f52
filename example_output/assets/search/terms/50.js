(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["50"]={"5003":"4"};
