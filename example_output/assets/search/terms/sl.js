(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sl"]={"slash":"c","slowest":"1","slug":"4,5","slugify":"4,5"};
