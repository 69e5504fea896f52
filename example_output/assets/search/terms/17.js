(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["17"]={"17":"4"};
