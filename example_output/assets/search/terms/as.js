(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["as"]={"as":"3","asks":"6","assert":"2,6","assertionerror":"1","assistant":"3"};
