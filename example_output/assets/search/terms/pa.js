(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pa"]={"parse":"3","parser":"3","passed":"6","passes":"6","patch":"3,4"};
