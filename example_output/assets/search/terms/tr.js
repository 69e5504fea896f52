(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["tr"]={"traceback":"0","trailing":"1,2","true":"3,6,a","try":"9"};
