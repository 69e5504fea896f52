(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ki"]={"kind":"f"};
