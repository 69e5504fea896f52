(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["16"]={"16":"6,9","16s":"6"};
