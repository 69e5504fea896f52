(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["bo"]={"book":"6","books":"6","both":"8,f"};
