(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["15"]={"15":"9","150":"0"};
