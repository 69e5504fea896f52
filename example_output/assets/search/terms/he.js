(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["he"]={"head":"4","header":"4","hello":"6","helper":"1","here":"9"};
