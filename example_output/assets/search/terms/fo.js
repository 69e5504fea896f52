(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fo"]={"folder":"3","following":"3,4","for":"0,1,2,3,6,7","found":"0,6"};
