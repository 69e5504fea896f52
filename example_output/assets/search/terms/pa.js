(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pa"]={"panic":"5","parse":"6","parser":"6","pass":"3,4","passed":"3,5,9","passes":"9","patch":"6,7"};
