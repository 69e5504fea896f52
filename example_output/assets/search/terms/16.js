(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["16"]={"16":"6,7","16s":"7"};
