(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["12"]={"12":"0,6","120":"0"};
