(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["en"]={"encode":"5","encrypted":"9","end":"7","ends":"1","environment":"4,7"};
