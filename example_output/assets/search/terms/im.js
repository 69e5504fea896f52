(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["im"]={"import":"0,1,2,5,6","importerror":"7"};
