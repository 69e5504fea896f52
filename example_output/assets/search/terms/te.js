(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["te"]={"tell":"6","test":"4,5,a,b,c","tests":"4,5,a,b","text":"4"};
