(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["li"]={"lib":"4,5","library":"6","line":"0,2,4,6,a,c,d,f","lines":"5,6","linux":"7","list":"0,2,6,8,9,c,f,g","listing":"6,9"};
