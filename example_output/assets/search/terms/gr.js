(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["gr"]={"green":"9","greeting":"6","greets":"6","grep":"a"};
