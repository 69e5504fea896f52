(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wr"]={"write":"1,2,3,4,6","written":"6","wrong":"3,6,7","wrote":"2"};
