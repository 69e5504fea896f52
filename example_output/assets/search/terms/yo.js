(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["yo"]={"you":"4,5,6,9","your":"9"};
