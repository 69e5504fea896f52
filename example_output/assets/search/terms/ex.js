(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ex"]={"exec":"7","execute":"3","exit":"1,3,5,6,9","exits":"6","expected":"6","expects":"5","explain":"3","explicitly":"9"};
