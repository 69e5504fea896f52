(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wo"]={"work":"c","working":"7","workspace":"6,a"};
