(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pu"]={"punctuation":"1","purpose":"6,9"};
