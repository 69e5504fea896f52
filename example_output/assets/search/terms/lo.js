(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["lo"]={"load":"0","loaded":"0","local":"9","localhost":"9","locating":"5","lock":"3","log":"0,9","look":"4,5,9","louder":"6","loudly":"6","lower":"1,5"};
