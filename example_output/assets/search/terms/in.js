(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["in"]={"in":"0,1,2,3,5,6","info":"1,3","information":"3","injected":"6","instructions":"4"};
