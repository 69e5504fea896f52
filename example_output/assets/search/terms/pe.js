(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pe"]={"pending":"c","per":"0,2","permission":"9","permissions":"a"};
