(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ch"]={"characters":"0","checking":"3","child":"0"};
