(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["an"]={"an":"4,9","and":"0,1,3,4,5,6,7,9,a","answer":"0","anthropic":"6"};
