(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["c4"]={"c4d5e6f7":"f"};
