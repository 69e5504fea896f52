(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["31"]={"310":"0"};
