"""Worker processes that die with the build.

A worker asks the kernel to kill it when its parent dies (prctl PR_SET_PDEATHSIG, Linux),
and a watchdog thread checks its parent every half second where that call is missing. So a
build killed with SIGKILL leaves no worker behind, and with the workers gone, the
multiprocessing resource tracker (which lives while anyone holds its pipe) exits too. Ctrl-C
is the parent's to handle: it stops the workers at once instead of waiting for their tasks.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

_PR_SET_PDEATHSIG = 1
_WATCH_SECONDS = 0.5


def _ask_kernel_to_kill_me_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # the watchdog below still ends this worker


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """Pool initializer: bind this worker's life to the build process `parent`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _ask_kernel_to_kill_me_with_parent()
    if os.getppid() != parent:  # the parent died before the request above was made
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watchdog").start()


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers die with this process, and which, left by an exception
    (Ctrl-C, a write error), kills its workers instead of waiting for their tasks."""

    def __init__(self, workers: int, mp_context) -> None:
        super().__init__(workers, mp_context=mp_context, initializer=die_with_parent, initargs=(os.getpid(),))

    def submit(self, *args, **kwargs):
        # Workers are started here, and a process inherits its starter's signal mask: with
        # SIGINT blocked, a Ctrl-C during a worker's start-up is the parent's alone too.
        # (A Ctrl-C arriving meanwhile is delivered to the parent when the mask is restored.)
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return super().submit(*args, **kwargs)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    def __exit__(self, exc_type, exc, traceback):
        if exc_type is None:
            return super().__exit__(exc_type, exc, traceback)
        # the executor has no public way to stop running tasks; its process table is the way in
        processes = list((self._processes or {}).values())
        for process in processes:
            process.kill()
        self.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.join(1)
        return False
