(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ex"]={"ex1":"4","exec":"a","execution":"6","exit":"4,7,8,c","exits":"7","expected":"7","explicitly":"c"};
