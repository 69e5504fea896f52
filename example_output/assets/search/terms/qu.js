(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["qu"]={"quantity":"f","question":"2"};
