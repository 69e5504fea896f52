(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ke"]={"keep":"5,9","keeping":"4","keeps":"1,4,5","kept":"4,5","keystrokes":"4"};
