(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["an"]={"an":"c","analysis":"f,g","and":"2,4,6,7,a,c,d,f,g","answer":"0,1,2","anthropic":"7"};
