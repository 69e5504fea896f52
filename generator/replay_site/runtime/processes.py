"""Worker processes of this machine that die with the build.

Workers are forked from the build once it has loaded what they all need (executors.py's
`prepare`), with the loaded objects frozen out of the garbage collector first, so that its
passes never write to (and so copy) the pages a worker shares with the build. One pool serves
every pass. (A program running other threads never gets here: executors.executor_for keeps its
build in-process.)

A worker asks the kernel to kill it when the build dies (Linux's PR_SET_PDEATHSIG): a build
ended by SIGKILL leaves no worker behind. Ctrl-C is the build's to handle: leaving the executor
by an exception kills the workers instead of waiting for their tasks.
"""
from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from replay_site.runtime.collector import TASK_GC_THRESHOLDS, run_with_fewer_collections
from replay_site.runtime.places import Place

_PR_SET_PDEATHSIG = 1
_PR_SET_NAME = 15
# Tasks given each worker ahead of the one it runs, so that none waits while the build process
# runs a task of its own; few, so that the pass does not end on a worker's long queue.
_QUEUED_PER_WORKER = 4
WORKER_NAME = b"replay-worker"  # a worker's name in ps (a forked one shares the build's command line)


def _die_with(build: int) -> None:
    """A worker's first act: its life bound to the build process `build`, its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the build's handler (cli/entry.py)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        libc.prctl(_PR_SET_NAME, ctypes.c_char_p(WORKER_NAME), 0, 0, 0)
    if os.getppid() != build:  # the build died before the kernel was asked
        os._exit(1)
    gc.set_threshold(*TASK_GC_THRESHOLDS)  # a worker runs nothing but tasks (executors.py)


class ProcessExecutor:
    """`processes` processes at work: the build process and `processes - 1` workers. Forking
    one worker fewer than there are processes at work saves a process's private pages (~35 MiB
    of the medium corpus's cold build, a fifth of its tree) and nothing of its speed."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._froze = False

    def __enter__(self) -> ProcessExecutor:
        gc.collect()  # garbage frozen now would never be collected
        gc.freeze()
        self._froze = True
        self._pool = ProcessPoolExecutor(self.processes - 1, mp_context=multiprocessing.get_context("fork"),
                                         initializer=_die_with, initargs=(os.getpid(),))
        self._pool.submit(os.getpid).result()  # every worker forked now, before any thread of the pool's starts
        return self

    def close(self) -> None:
        self.__exit__(None)

    def __exit__(self, exc_type, *_exc: object) -> None:
        pool, self._pool = self._pool, None
        if pool is None:  # closed already
            return
        try:
            if exc_type is None:
                pool.shutdown(wait=True)
            else:  # a failed task, Ctrl-C: the workers are killed, not waited for
                workers = list((pool._processes or {}).values())  # the executor has no public way to stop a running task
                for worker in workers:
                    worker.kill()
                pool.shutdown(wait=False, cancel_futures=True)
                for worker in workers:
                    worker.join(1)
        finally:
            if self._froze:
                gc.unfreeze()
                self._froze = False

    def map(self, function: Callable, items: Iterable[Any], places: Sequence[Place] | None = None) -> Iterator[Any]:
        """function(item) for each item, in the items' order (a task's error reaches the caller
        after the results before it). The workers take items from the front, a few queued each
        so that none waits for its next; the build process, rather than wait for the result it
        must yield next, runs items from the back itself."""
        items = list(items)
        futures: dict[int, Future] = {}
        front, back = 0, len(items)  # items[front:back] are not started yet
        queued = _QUEUED_PER_WORKER * (self.processes - 1)
        for index in range(len(items)):
            while front < back:
                while front < back and sum(not future.done() for future in futures.values()) < queued:
                    futures[front] = self._pool.submit(function, items[front])
                    items[front], front = None, front + 1
                if front == back or (index in futures and futures[index].done()):
                    break
                back -= 1
                futures[back] = _run_here(function, items[back])
                items[back] = None
            yield futures.pop(index).result()  # the result goes once taken

    def map_placed(self, function: Callable, items: Iterable[Any]) -> Iterator[tuple[Any, Place]]:
        return ((result, None) for result in self.map(function, items))


def _run_here(function: Callable, item: Any) -> Future:
    """function(item) run in this process, its result or error kept as a worker's would be."""
    future: Future = Future()
    try:
        future.set_result(run_with_fewer_collections(function, item))
    except Exception as exc:  # noqa: BLE001 - raised where its item's result is taken
        future.set_exception(exc)
    return future
