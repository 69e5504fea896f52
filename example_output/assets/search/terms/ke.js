(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ke"]={"keep":"c","keeps":"4","kept":"a"};
