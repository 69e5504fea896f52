(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pl"]={"plain":"7","plan":"2,6,c","planner":"0,1","plants":"6","please":"6,c","plumber":"6"};
