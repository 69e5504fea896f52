(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ge"]={"general":"6,7,c","generated":"4,8,c"};
