(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["py"]={"py":"4,5,7,8,a,b,c,d,f,g","pytest":"4,c","python":"0,1,2,7,c","python3":"7,a"};
