(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["un"]={"unicodedata":"5","unittest":"7","unless":"9"};
