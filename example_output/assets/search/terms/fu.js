(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fu"]={"full":"4","function":"c,d","functions":"c,d","future":"a"};
