(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["th"]={"that":"6,9,a","the":"0,1,2,3,4,5,6,7,8,9,a","them":"5,9","then":"0,3,6,9","there":"8","these":"9","thinking":"9","this":"0,9"};
