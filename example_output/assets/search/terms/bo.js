(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["bo"]={"both":"3"};
