(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["12"]={"12":"2,6,7","120":"1,2"};
