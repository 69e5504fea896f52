(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ze"]={"zero":"0","zerodivisionerror":"0"};
