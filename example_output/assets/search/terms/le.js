(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["le"]={"leading":"1","leaves":"1","len":"0"};
