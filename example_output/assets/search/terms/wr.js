(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wr"]={"write":"1,2,3,4,6,7,9","written":"9","wrong":"6,9,a","wrote":"2"};
