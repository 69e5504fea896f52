(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ag"]={"again":"9","agent":"0,9","agentid":"9"};
