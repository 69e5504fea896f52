(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["be"]={"be":"1","been":"6","before":"6","begin":"4","being":"6","below":"6","beside":"0","best":"0"};
