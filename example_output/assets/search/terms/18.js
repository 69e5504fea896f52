(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["18"]={"18":"6"};
