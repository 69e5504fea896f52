(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["it"]={"it":"1,3,5,6,7,9","its":"5"};
