(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["al"]={"alarm":"6","all":"2","allowlisted":"6,7"};
