(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["py"]={"py":"1,2,3,5,6,7,8,9,a","pytest":"1,3,5,9","python":"0,5,6,9","python3":"6,7"};
