(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fa"]={"failed":"1,5,9","failing":"9","fails":"6,9","failure":"5","failures":"9","false":"3"};
