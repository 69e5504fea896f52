(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["en"]={"encrypted":"6","end":"4","ends":"1","environment":"4"};
