(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ca"]={"calc":"7,8,9,a","call":"0","can":"3,6","captured":"9","cat":"6,7,9","caveat":"9"};
