(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ev"]={"every":"5","everything":"9"};
