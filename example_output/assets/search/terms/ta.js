(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ta"]={"tag":"f","task":"0,2,6,7,c,f"};
