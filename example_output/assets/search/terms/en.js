(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["en"]={"encrypted":"c","end":"a","endpoint":"0,1","ends":"4","environment":"a"};
