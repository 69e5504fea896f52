(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ch"]={"characters":"2","check":"6,f","checking":"7","checkpoint":"4","child":"0"};
