(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["gn"]={"gnu":"6"};
