(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["bu"]={"budget":"7","bug":"c","bugs":"c","build":"8","buy":"6"};
