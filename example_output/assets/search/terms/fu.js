(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["fu"]={"full":"1","function":"6,7","functions":"6,7"};
