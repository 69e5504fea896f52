(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pl"]={"plain":"6","plan":"0,9","please":"9","plus":"4"};
