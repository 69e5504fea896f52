(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["wh"]={"where":"4","which":"6","while":"c,f"};
