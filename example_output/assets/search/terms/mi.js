(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["mi"]={"milk":"6","mistakes":"c"};
