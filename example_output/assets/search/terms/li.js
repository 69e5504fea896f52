(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["li"]={"lib":"1,2","line":"0,1,4,9,a","lines":"2","linux":"4,6","list":"0,9"};
