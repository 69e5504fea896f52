(window.REPLAY_SHARDS=window.REPLAY_SHARDS||{})["session_example-run_20261201_090001_000002-0abd55b3"]=[];
