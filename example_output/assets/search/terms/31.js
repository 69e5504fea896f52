(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["31"]={"310":"0","31chars":"9"};
