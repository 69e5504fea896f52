(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sh"]={"shape":"4","shell":"3,5,6"};
