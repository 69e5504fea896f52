(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["im"]={"import":"1,2,4,5,7","importerror":"a"};
