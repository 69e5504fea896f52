(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["le"]={"leading":"1","leaves":"1","len":"0","let":"5","letter":"5","letters":"5"};
