(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ra"]={"ran":"6,7,c","range":"0","rationale":"0,1","raw":"4,a,f"};
