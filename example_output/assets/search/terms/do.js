(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["do"]={"do":"6","done":"3"};
