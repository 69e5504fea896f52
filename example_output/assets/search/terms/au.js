(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["au"]={"autonomous":"6"};
