(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["se"]={"search":"9,a","second":"3","see":"6","seen":"4","sees":"3","send":"4","separate":"0","session":"6,9","set":"3,9"};
