(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["at"]={"at":"6"};
