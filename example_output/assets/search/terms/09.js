(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["09"]={"090001":"0"};
