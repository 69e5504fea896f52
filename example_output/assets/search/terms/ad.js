(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ad"]={"ada":"3","add":"1,3,4,6","added":"1,2","adding":"1,2","adds":"4"};
