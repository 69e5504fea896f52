(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ag"]={"again":"6","agent":"0,6","agentid":"6"};
