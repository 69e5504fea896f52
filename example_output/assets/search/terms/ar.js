(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ar"]={"are":"0,3,4,5,6,8","argparse":"6","args":"6","argument":"6","argumentparser":"6","arguments":"6"};
