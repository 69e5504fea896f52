(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["be"]={"be":"1","been":"3,9","before":"4,9","begin":"7","being":"9","below":"3,9","beside":"0","best":"0","between":"3"};
