(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fo"]={"folder":"6","folding":"5","following":"6,7","for":"0,1,2,6,9,a","found":"0,9"};
