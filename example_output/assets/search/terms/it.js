(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["it"]={"it":"1,3,4,6"};
