(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["au"]={"auto":"6","autonomous":"6,7"};
