(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["an"]={"an":"6","and":"0,1,3,4,6,7","answer":"0","anthropic":"3"};
