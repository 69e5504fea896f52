(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ti"]={"time":"6","title":"1,5"};
