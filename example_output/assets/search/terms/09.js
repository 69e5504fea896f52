(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["09"]={"09":"4"};
