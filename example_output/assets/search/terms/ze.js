(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ze"]={"zero":"0,3","zerodivisionerror":"0"};
