(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ot"]={"other":"6,7","otherwise":"6"};
