(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["im"]={"import":"0,1,2,3","importerror":"4"};
