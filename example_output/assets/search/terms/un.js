(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["un"]={"unittest":"4","unless":"6"};
