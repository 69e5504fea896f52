(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["st"]={"status":"6","stderr":"3","stdout":"3,6","step":"0","steps":"0","string":"0","strip":"1","strips":"1"};
