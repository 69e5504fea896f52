(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["md"]={"md":"8,a,c"};
