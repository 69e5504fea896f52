(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["da"]={"dash":"1","dashes":"1,2","database":"9"};
