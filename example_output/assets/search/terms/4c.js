(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["4c"]={"4c3d":"f"};
