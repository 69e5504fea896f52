(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["el"]={"elapsed":"7","electricity":"6","else":"f"};
