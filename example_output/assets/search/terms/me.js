(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["me"]={"me":"6","mean":"2","means":"2","median":"0,1","mention":"f,g","mentions":"f,g","message":"c","messages":"c"};
