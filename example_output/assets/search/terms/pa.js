(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pa"]={"parse":"7","parser":"7","part":"f","passed":"c","passes":"c","passport":"6","patch":"7,a","path":"6","pay":"6"};
