(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["it"]={"it":"4,6,7,8,a,c,f"};
