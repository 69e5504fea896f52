(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wr"]={"write":"4,5,6,7,a,c","writes":"f","written":"c","wrong":"7,c,d","wrote":"5"};
