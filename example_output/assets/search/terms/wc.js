(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wc"]={"wc":"4"};
