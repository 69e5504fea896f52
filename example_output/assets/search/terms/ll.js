(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ll"]={"ll":"c,f","llm":"2","llms":"6,7"};
