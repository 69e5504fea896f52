(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["no"]={"no":"0,3,9,a","non":"5","normalize":"5","north":"0","not":"9","notes":"7,9","notice":"1,6","now":"1,3,5,6,7,9"};
