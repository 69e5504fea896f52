(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["do"]={"do":"9","don":"5","done":"6","dont":"5"};
