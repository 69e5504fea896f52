(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ba"]={"badge":"9","bash":"1,4,9"};
