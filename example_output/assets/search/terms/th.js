(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["th"]={"that":"3,6,7","the":"0,1,2,3,4,5,6,7","them":"6","then":"0,3,6","there":"5","these":"6","thinking":"6","this":"0,6"};
