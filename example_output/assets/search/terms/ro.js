(window.REPLAY_TERMS=window.REPLAY_TERMS||{})["ro"]={"rough":"4","row":"3,4","rowcount":"3","rows":"0,4"};
