(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ot"]={"other":"c,d,f","otherwise":"c"};
