(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["bu"]={"budget":"3","bug":"6","bugs":"6"};
