(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["de"]={"debian":"6","decode":"5","def":"1,2,3,5,7,9","delegate":"0","demo":"6,9,a","depth":"0","dev":"3,5,6,7,9","developer":"7"};
