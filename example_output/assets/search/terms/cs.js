(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cs"]={"csv":"0,4"};
