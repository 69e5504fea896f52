(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["pr"]={"pressure":"6","previous":"c","price":"f","print":"0,1,2,7","printer":"6","progress":"c","prompt":"6,7","provider":"c"};
