(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["de"]={"debian":"3","def":"1,2,4,6","delegate":"0","demo":"3,6,7","depth":"0","dev":"3,4,6","developer":"4"};
