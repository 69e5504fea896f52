(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ba"]={"badge":"6","bash":"1,6"};
