(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fl"]={"flag":"6","float":"0"};
