(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["up"]={"update":"3,7","updated":"3,7,9","upper":"6"};
