(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ho"]={"holds":"6","home":"6,7,a,c,f,g","how":"6"};
