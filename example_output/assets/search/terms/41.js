(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["41"]={"4120":"4","41s":"3"};
