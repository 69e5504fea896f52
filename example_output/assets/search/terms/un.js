(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["un"]={"unittest":"a","unknown":"4,8,a","unless":"c","unrecognised":"f","unused":"6"};
