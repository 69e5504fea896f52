(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ch"]={"change":"3,5","characters":"0","check":"3","checking":"6","child":"0","choosing":"4"};
