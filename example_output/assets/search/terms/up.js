(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["up"]={"update":"4","updated":"4,6","upper":"3"};
