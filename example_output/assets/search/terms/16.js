(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["16"]={"16":"3","16s":"3"};
