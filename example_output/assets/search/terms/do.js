(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["do"]={"do":"c","done":"0,1,6,7,f"};
