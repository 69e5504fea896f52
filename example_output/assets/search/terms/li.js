(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["li"]={"lib":"1,2","line":"0,1,6,7","lines":"2","linux":"3","list":"0,6"};
