(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["1a"]={"1a2b":"f"};
