(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ar"]={"are":"2,6,7,8,b","argparse":"7","args":"7","argument":"7","argumentparser":"7","arguments":"7"};
