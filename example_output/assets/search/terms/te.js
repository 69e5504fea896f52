(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["te"]={"tell":"5","terminal":"4","test":"1,2,3,5,7,8,9","tests":"1,2,3,5,7,8,9","text":"1"};
