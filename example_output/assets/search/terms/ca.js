(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ca"]={"cache":"8","calc":"a,b,c,d","call":"0,2,6,8","can":"7","cancel":"6","cannot":"8,9","cat":"6,7,a,c","caveat":"c"};
