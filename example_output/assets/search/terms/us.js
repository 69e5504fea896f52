(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["us"]={"usage":"6","use":"9,a","user":"5,9","uses":"9,a","using":"6"};
