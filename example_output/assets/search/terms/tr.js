(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["tr"]={"traceback":"0,2","trailing":"4,5","traversal":"6","trip":"6","true":"0,1,7,d","try":"c"};
