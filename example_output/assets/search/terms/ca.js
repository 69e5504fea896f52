(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ca"]={"calc":"4,5,6,7","call":"0","can":"3","captured":"6","cat":"3,4,6","caveat":"6"};
