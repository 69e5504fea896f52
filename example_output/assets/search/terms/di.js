(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["di"]={"dictreader":"0","directory":"3","division":"0"};
