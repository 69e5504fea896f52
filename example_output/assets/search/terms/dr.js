(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["dr"]={"driving":"3","drops":"5"};
