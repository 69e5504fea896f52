(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fr"]={"from":"2,4,9"};
