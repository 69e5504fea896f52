(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pe"]={"pending":"6","per":"0","permissions":"4"};
