(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["so"]={"some":"a","sonnet":"7,c","sort":"6","south":"2"};
