(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["br"]={"brle":"5","brulee":"5","brûlée":"5"};
