(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["to"]={"to":"1,3,6","todo":"6","todos":"6","todowrite":"6","token":"3","tokens":"6","tool":"1","total":"0"};
