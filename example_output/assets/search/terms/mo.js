(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["mo"]={"model":"6,7,c","modified":"c","module":"0,2","moon":"2","most":"0,2"};
