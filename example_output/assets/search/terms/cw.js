(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cw"]={"cwd":"7"};
