(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fr"]={"freezer":"6","from":"5,c"};
