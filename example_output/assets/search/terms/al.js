(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["al"]={"all":"0","allowlisted":"6"};
