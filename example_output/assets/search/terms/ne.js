(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ne"]={"need":"4","needed":"9","needs":"6","negative":"3","never":"5","next":"0"};
