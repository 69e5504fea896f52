(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ke"]={"keep":"6","keeps":"1"};
