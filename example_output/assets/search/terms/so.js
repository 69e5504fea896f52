(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["so"]={"sonnet":"3,6","south":"0"};
