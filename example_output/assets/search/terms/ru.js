(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ru"]={"run":"0,1,2,4,7,a,c","running":"4,7,a,c"};
