(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ba"]={"back":"6","badge":"c","bash":"4,8,c","battery":"6"};
