(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sm"]={"smoke":"6"};
