(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ce"]={"cell":"f"};
