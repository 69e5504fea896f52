(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["cr"]={"created":"9","credential":"9","creme":"5","crme":"5","crème":"5"};
