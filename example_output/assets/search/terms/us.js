(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["us"]={"usage":"3","use":"6,7","user":"6","uses":"6,7","using":"3"};
