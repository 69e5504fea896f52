(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pr"]={"previous":"6","print":"0,3","progress":"6","prompt":"3","provider":"6"};
