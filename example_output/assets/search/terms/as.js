(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["as"]={"as":"7,a","ask":"f","asks":"c","assert":"5,c","assertionerror":"4","assistant":"6,7"};
