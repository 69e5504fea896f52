(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sl"]={"slash":"9","slug":"1,2,5","slugify":"1,2,5"};
