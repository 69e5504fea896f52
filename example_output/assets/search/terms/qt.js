(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["qt"]={"qty":"f,g"};
