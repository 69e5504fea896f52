(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["po"]={"powered":"6,7"};
