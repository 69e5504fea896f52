(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cu"]={"current":"4,6","currently":"6,7"};
