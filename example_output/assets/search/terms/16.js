(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["16"]={"16":"6","16s":"6"};
