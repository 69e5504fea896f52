(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pu"]={"punctuation":"4","purpose":"6,7,c"};
