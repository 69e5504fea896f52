(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ne"]={"needed":"6","needs":"3","next":"0"};
