(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["qw"]={"qwen3":"6"};
