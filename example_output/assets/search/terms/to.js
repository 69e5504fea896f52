(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["to"]={"to":"1,4,5,6,9","todo":"9","todos":"9","todowrite":"9","token":"6","tokens":"9","tool":"1,4","total":"0"};
