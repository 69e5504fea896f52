(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["up"]={"up":"6","update":"6,a","updated":"7,a,c,f","upper":"7"};
