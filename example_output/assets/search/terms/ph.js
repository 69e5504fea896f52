(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ph"]={"photos":"6"};
