(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["gr"]={"green":"6","greeting":"3","greets":"3","grep":"7"};
