(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ra"]={"race":"3","ran":"6,9"};
