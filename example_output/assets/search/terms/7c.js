(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["7c"]={"7c3d9e1":"9"};
