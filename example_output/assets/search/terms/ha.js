(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ha"]={"has":"6","have":"6"};
