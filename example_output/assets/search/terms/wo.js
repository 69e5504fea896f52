(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wo"]={"work":"9","working":"6","workspace":"7","would":"3"};
