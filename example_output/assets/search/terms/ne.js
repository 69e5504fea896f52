(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ne"]={"needed":"c","needs":"7","new":"6,f","next":"2"};
