(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ad"]={"ada":"6","add":"1,6,7,9","added":"1,2","adding":"1,2","adds":"7"};
