(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["02"]={"020z":"4","02s":"c"};
