(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sl"]={"slash":"6","slug":"1,2","slugify":"1,2"};
