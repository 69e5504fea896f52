(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fo"]={"folder":"7,8","following":"7,a","for":"2,4,5,7,c,d,f","found":"c"};
