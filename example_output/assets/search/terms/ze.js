(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ze"]={"zero":"2","zerodivisionerror":"2"};
