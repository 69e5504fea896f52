(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["di"]={"dictreader":"2","directory":"6,7,8,9","division":"2"};
