(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ro"]={"rows":"0"};
