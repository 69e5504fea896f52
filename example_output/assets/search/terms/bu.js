(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["bu"]={"budget":"6","bug":"9","bugs":"9"};
