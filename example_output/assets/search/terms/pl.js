(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pl"]={"plain":"3","plan":"0,6","please":"6"};
