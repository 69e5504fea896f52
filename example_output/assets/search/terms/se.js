(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["se"]={"search":"6,7","see":"3","separate":"0","session":"3,6","set":"6"};
