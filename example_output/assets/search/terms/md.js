(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["md"]={"md":"7,9"};
