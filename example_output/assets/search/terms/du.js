(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["du"]={"during":"6"};
