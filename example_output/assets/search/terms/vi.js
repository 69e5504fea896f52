(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["vi"]={"visible":"f"};
