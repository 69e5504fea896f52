(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sc"]={"script":"6"};
