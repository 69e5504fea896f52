(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ed"]={"edit":"4,7,c,f","edited":"c","edits":"f"};
