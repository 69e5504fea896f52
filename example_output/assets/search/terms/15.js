(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["15"]={"15":"6","150":"0"};
