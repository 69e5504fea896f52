(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["le"]={"leading":"4","learn":"6","leaves":"4","len":"2"};
