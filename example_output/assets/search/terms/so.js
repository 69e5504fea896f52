(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["so"]={"so":"3","solving":"4","sonnet":"6,9","south":"0"};
