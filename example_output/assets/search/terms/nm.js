(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["nm"]={"nme":"6"};
