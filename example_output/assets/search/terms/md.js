(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["md"]={"md":"4,6"};
