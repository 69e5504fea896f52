(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ur"]={"uri":"9","url":"9"};
