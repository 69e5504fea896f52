(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["te"]={"test":"1,2,4,5,6","tests":"1,2,4,5,6","text":"1"};
