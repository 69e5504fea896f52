(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["8e"]={"8e9f":"f"};
