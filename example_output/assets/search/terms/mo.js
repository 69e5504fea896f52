(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["mo"]={"model":"6,9","modified":"5,9","module":"0","moon":"0","most":"0"};
