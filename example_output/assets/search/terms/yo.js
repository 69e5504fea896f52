(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["yo"]={"you":"6,7,c","your":"c"};
