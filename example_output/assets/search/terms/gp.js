(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["gp"]={"gptme":"6"};
