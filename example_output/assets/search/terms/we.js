(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["we"]={"weekend":"6","were":"c"};
