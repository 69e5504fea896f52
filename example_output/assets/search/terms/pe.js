(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pe"]={"pending":"9","per":"0","permissions":"7"};
