(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["a0"]={"a0b1c2d3e4f5":"f"};
