(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sh"]={"shell":"3"};
