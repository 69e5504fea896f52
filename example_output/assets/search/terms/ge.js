(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ge"]={"general":"3,6","generated":"1,6","generic":"6"};
