(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["id"]={"id":"4","idea":"6"};
