(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["df"]={"df":"f"};
