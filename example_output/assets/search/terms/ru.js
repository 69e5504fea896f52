(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ru"]={"run":"0,1,3,4,6","running":"1,3,4,6"};
