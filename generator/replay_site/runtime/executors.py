"""The executor interface, running tasks in this process, and choosing how a build runs."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from replay_site.runtime.collector import run_with_fewer_collections
from replay_site.runtime.places import Place



class Executor(Protocol):
    """Runs a pass's tasks: `map` yields function(item) for each item, in the items' order.
    Used as a context manager: leaving it ends whatever it started, also on an error."""

    processes: int  # how many processes run tasks at once

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...

    def close(self) -> None:
        """End whatever the executor started, now (leaving it does too): its tasks are all done."""

    def map(self, function: Callable, items: Iterable[Any], places: Sequence[Place] | None = None) -> Iterator[Any]:
        """function(item) for each item; where `places` are given, each item runs at its place
        when it still can (a task that reads what an earlier task left there)."""

    def map_placed(self, function: Callable, items: Iterable[Any]) -> Iterator[tuple[Any, Place]]:
        """As map, each result with the place it was made at."""


class InlineExecutor:
    """Every task in this process, one after the other: one job, and builds too small to pay
    for starting workers."""

    processes = 1

    def __enter__(self) -> InlineExecutor:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def close(self) -> None:
        return None

    @staticmethod
    def map(function: Callable, items: Iterable[Any], places: Sequence[Place] | None = None) -> Iterator[Any]:
        return (run_with_fewer_collections(function, item) for item in items)

    @staticmethod
    def map_placed(function: Callable, items: Iterable[Any]) -> Iterator[tuple[Any, Place]]:
        return ((run_with_fewer_collections(function, item), None) for item in items)


# A worker costs a fork and its own copy of what it touches (~0.1 s and ~30 MiB); below this
# many bytes of logs per worker a build is quicker in one process.
BYTES_PER_WORKER = 16 << 20


def executor_for(jobs: int, work_bytes: int, tasks: int, scheduler: str | None = None,
                 prepare: Callable[[], None] | None = None) -> Executor:
    """How a build runs: on the dask cluster at `scheduler`; else in `jobs` processes when
    given (1: this one), else in as many as the bytes to read pay for, never more than tasks
    or cores. `prepare` runs once before workers are forked (what they all load, so that they
    share it rather than each loading its own; it ends the threads it loads in). A program
    running other threads builds in its own process: forking it could copy a lock another
    thread holds, and spawned workers would leave multiprocessing's resource tracker running
    after the build."""
    if scheduler:
        from replay_site.runtime.cluster import DaskExecutor  # dask is an extra, and slow to import

        return DaskExecutor(scheduler)
    processes = jobs if jobs > 0 else min(os.cpu_count() or 1, work_bytes // BYTES_PER_WORKER, tasks)
    if processes <= 1 or not hasattr(os, "fork"):
        return InlineExecutor()
    if prepare is not None:
        prepare()
    if threading.active_count() > 1:
        return InlineExecutor()
    from replay_site.runtime.processes import ProcessExecutor

    return ProcessExecutor(processes)
