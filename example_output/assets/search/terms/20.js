(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["20"]={"20":"6","200000":"7","2026":"4"};
