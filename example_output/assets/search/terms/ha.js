(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ha"]={"has":"3,4,9","have":"9"};
