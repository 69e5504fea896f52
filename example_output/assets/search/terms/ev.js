(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ev"]={"everything":"6"};
