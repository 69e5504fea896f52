(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sk"]={"sku":"3,4"};
