(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sr"]={"src":"8"};
