(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pr"]={"previous":"9","print":"0,6","produced":"5","progress":"9","prompt":"6","provider":"9"};
