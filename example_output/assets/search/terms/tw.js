(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["tw"]={"two":"3"};
