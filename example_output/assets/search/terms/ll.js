(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ll"]={"ll":"3,9","llm":"0","llms":"6"};
