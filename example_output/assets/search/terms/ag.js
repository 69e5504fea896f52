(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ag"]={"again":"c","agent":"c","agentid":"c"};
