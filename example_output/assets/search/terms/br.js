(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["br"]={"brakes":"6","branch":"f"};
