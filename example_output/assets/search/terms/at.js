(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["at"]={"at":"4,5,9","atomic":"3"};
