(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["us"]={"usage":"7","use":"6,9,c,d,f","user":"c","uses":"c,d,f","using":"6,7"};
