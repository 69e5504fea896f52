(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["er"]={"error":"6,9"};
