(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["mu"]={"multiedit":"f","must":"f"};
