(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ex"]={"exec":"4","exit":"1,3,6","exits":"3","expected":"3","explicitly":"6"};
