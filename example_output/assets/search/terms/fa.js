(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fa"]={"failed":"4,c","failing":"c","fails":"7,c","failures":"c","false":"0,1"};
