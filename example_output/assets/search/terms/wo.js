(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wo"]={"work":"6","working":"3","workspace":"4"};
