(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ve"]={"version":"4,f"};
