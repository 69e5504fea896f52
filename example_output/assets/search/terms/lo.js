(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["lo"]={"load":"0","loaded":"0","local":"6","localhost":"6","log":"0,6","look":"6","louder":"3","loudly":"3","lower":"1"};
