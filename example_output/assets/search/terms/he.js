(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["he"]={"hello":"3","helper":"1","here":"6"};
