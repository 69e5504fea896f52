(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["yo"]={"you":"3,6","your":"6"};
