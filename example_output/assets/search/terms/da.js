(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["da"]={"dash":"4","dashes":"4,5"};
