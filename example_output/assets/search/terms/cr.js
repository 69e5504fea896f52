(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cr"]={"created":"6","credential":"6"};
