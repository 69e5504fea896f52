(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["po"]={"postgres":"9","powered":"6"};
