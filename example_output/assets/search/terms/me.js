(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["me"]={"mean":"0","means":"0","message":"6","messages":"6"};
