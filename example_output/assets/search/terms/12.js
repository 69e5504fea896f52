(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["12"]={"12":"0,3","120":"0"};
