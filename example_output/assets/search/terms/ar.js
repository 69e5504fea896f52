(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ar"]={"are":"0,3,5","argparse":"3","args":"3","argument":"3","argumentparser":"3","arguments":"3"};
