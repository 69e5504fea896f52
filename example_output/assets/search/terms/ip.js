(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ip"]={"ipynb":"f,g"};
