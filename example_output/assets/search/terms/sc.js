(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["sc"]={"schema":"4","script":"7"};
