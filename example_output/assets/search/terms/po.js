(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["po"]={"postgres":"6","powered":"3"};
