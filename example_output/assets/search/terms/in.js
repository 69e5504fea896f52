(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["in"]={"in":"0,1,2,3,4,5,6,8,9","info":"1,6","information":"6","injected":"9","instead":"3","instructions":"7","inventory":"3"};
