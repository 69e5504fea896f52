"""What a process forked from the build to serve it does first (catalogue.ScanningProcess,
costs.lookup.LookupProcess). Standard library only."""
from __future__ import annotations

import os
import signal


def become_helper(name: bytes) -> None:
    """Ctrl-C is the build's to handle; standard streams on /dev/null, so that a pipe the build
    writes to (`replay-site build | tee`) ends with the build, whatever this process does
    meanwhile; and a name of its own in ps and /proc/PID/comm (a forked process shares the
    build's command line)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):
        os.dup2(null, stream)
    os.close(null)
    try:
        with open("/proc/self/comm", "wb") as comm:
            comm.write(name)
    except OSError:
        pass
