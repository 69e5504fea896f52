(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["qt"]={"qty":"3,4"};
