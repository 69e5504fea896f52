(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["lo"]={"load":"2","loaded":"2","local":"6,c","log":"0","login":"0,1","look":"0,c,f","louder":"7","loudly":"7","lower":"4"};
