(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["os"]={"os":"6"};
