(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ur"]={"uri":"6","url":"6"};
