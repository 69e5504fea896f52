(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["tx"]={"txt":"6"};
