(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["as"]={"as":"6","ascii":"5","asks":"9","assert":"2,5,9","assertionerror":"1,5","assistant":"4,6"};
