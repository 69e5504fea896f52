(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ol"]={"older":"1"};
