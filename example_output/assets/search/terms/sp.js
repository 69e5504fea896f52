(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sp"]={"spawn":"4","split":"0","splitlines":"0"};
