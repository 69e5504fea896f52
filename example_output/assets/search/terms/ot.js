(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ot"]={"other":"3,5,9,a","otherwise":"9"};
