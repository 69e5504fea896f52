(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["mo"]={"model":"3,6","modified":"6","module":"0","moon":"0","most":"0"};
