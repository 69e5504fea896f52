(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ti"]={"time":"3","title":"1"};
