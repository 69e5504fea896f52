(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["35"]={"35":"6"};
