(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["di"]={"dictreader":"0","directory":"6","division":"0"};
