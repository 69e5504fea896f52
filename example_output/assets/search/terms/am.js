(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["am"]={"amount":"0"};
