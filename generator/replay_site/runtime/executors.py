"""How many processes run a build's tasks, and running a task in this one.

`executor_for` decides from the bytes the build has to read: this process alone
(`InlineExecutor`) for small builds, else this one beside a pool of workers that die with
the build (worker_pool.py, imported only then), a pool for each pass (`PassPools`).
"""
from __future__ import annotations

import os
from collections.abc import Callable

from replay_site.runtime.task_memory import release_freed_memory, run_then_release


class InlineExecutor:
    """The executor interface, run in this process: for one job, and small builds where
    starting worker processes costs more than it saves."""

    processes = 1

    def __enter__(self):
        return self

    def __exit__(self, *_exc) -> None:
        return None

    @staticmethod
    def map(function, items):
        return (run_then_release(function, item) for item in items)

    @staticmethod
    def end_workers() -> None:
        """No worker to end: this process is the only one."""

    @staticmethod
    def reading_done(_prepare: Callable[[], None]) -> None:
        """The catalogue stays: the next build in this process may need it (_release_shared)."""


# Starting workers (an interpreter loading jinja2, pygments, prices and the secret scanner:
# once in the fork server, else once per spawned worker) costs about half a second of a core,
# and the parent waits meanwhile. Measured with spawned workers: on the
# 2-core development machine, quiet, the 80 MiB benchmark corpus built in 12.9-14.3 s wall
# in one process and 8.3-8.6 s with two workers (on the same machine loaded by other jobs,
# two workers lost: 16.9 s against 11.9 s); the tests' and the examples' few MiB stay in
# one process.
BYTES_PER_WORKER = 16 << 20


def executor_for(jobs: int, work_bytes: int, sources: int):
    """Processes for the build's tasks, this one included: `jobs` when given, else as many as
    the bytes to read pay for (never more than sources to read, nor than cores)."""
    processes = jobs if jobs > 0 else min(os.cpu_count() or 1, work_bytes // BYTES_PER_WORKER, sources)
    release_freed_memory()  # discovery's file heads, before the long part of the build
    if processes <= 1:
        return InlineExecutor()
    from replay_site.runtime.worker_pool import PassPools, worker_context

    return PassPools(processes, worker_context())


def executor_of(processes: int, scanner: bool = True):
    """`processes` that run tasks, this one and processes - 1 workers, or this one alone;
    `scanner`: whether the workers may redact (worker_pool.load_shared)."""
    if processes <= 1:
        return InlineExecutor()
    from replay_site.runtime.worker_pool import WorkerPool, worker_context

    return WorkerPool(processes, worker_context(), scanner)
