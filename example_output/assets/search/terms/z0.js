(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["z0"]={"z0":"1,5"};
