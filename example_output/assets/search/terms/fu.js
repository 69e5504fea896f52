(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fu"]={"full":"1","function":"5,9,a","functions":"9,a"};
