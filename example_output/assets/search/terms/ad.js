(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ad"]={"ada":"7","add":"4,7,a,c","added":"4,5","adding":"4,5","adds":"a"};
