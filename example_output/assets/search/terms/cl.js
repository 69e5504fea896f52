(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cl"]={"claude":"7","clean":"6,f,g","cloud":"f"};
