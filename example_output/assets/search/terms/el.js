(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["el"]={"elapsed":"6"};
