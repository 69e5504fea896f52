(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ru"]={"run":"0,1,3,5,6,7,9","running":"1,6,7,9"};
