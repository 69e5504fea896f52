(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["he"]={"hello":"7","helper":"4","here":"c"};
