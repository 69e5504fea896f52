(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ty"]={"type":"4,a,c,f","tyre":"6"};
