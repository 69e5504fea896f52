(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cu"]={"current":"1","currently":"6"};
