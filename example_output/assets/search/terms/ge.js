(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ge"]={"general":"6,9","generated":"1,9","generic":"9","get":"3","gets":"3"};
