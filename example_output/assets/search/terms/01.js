(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["01"]={"01t09":"4"};
