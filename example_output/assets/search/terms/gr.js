(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["gr"]={"green":"c","greeting":"7","greets":"7","grep":"8,d","group":"1","groupby":"f"};
