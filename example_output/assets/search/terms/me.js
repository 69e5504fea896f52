(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["me"]={"me":"5","mean":"0","means":"0","message":"9","messages":"9"};
