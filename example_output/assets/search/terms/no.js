(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["no"]={"no":"0,6,7","north":"0","not":"6","notes":"4,6","notice":"1,3","now":"1,3,4,6"};
