(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ti"]={"time":"7","timestamp":"4","title":"4,8"};
