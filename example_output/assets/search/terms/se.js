(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["se"]={"search":"c,d","see":"7","separate":"2","sequence":"4","session":"4,6,7,c","sessionid":"f","set":"c"};
