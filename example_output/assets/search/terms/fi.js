(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fi"]={"file":"0,1,2,3,4,6,7","files":"3,4","final":"0","find":"6","finished":"3","first":"1,3,4,6","fix":"1,4,6","fixed":"1,4,6","fixing":"6"};
