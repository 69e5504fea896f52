(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ev"]={"event":"4,a","every":"f,g","everything":"c"};
