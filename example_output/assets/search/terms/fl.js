(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fl"]={"flag":"7","float":"2"};
