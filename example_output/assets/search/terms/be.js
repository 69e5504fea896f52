(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["be"]={"be":"4","been":"c","before":"c","begin":"a","being":"c","below":"c","best":"2"};
