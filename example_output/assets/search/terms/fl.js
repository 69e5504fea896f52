(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fl"]={"flag":"3","float":"0"};
