(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["py"]={"py":"1,2,3,4,5,6,7","pytest":"1,6","python":"0,3,6","python3":"3,4"};
