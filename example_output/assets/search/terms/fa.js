(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fa"]={"failed":"1,6","failing":"6","fails":"3,6","failures":"6"};
