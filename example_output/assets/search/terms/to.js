(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["to"]={"to":"4,6,7,8,c,f","todo":"8,c","todos":"8,c","todowrite":"c","token":"7","tokens":"c","tool":"4,6,8","total":"2,f"};
