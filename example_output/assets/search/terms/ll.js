(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ll"]={"ll":"6","llm":"0","llms":"3"};
