"""The build's per-source work as tasks on a dask.distributed cluster (`--scheduler ADDRESS`,
extra `[dask]`): the executor interface of executors.py (`map`, in order, as a context
manager), so the pipeline is the same whichever runs its tasks. Only what a task returns
travels back to the build (a source's summaries, problems and file states; the names of the
files it wrote): the workers read the sources and write the pages themselves, so they must
see the same paths (a shared folder or the same machine) or URLs.

A task is retried when its worker dies (the scheduler moves it to another worker): a task
writes each file whole (writer.py), so one run halfway through leaves nothing a retry does
not replace.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

# Besides the scheduler's own rescheduling of tasks whose worker died (up to its
# `allowed-failures`), a task that raised is tried again this many times.
RETRIES = 2


class ClusterUnavailable(Exception):
    """--scheduler names a cluster this build cannot use (dask missing, no scheduler there)."""


def _task_name(function: Callable) -> str:
    inner = getattr(function, "func", function)  # a functools.partial names its function
    return getattr(inner, "__name__", "task").lstrip("_")


class DaskExecutor:
    """Tasks on the cluster whose scheduler listens at `address` (tcp://host:port)."""

    def __init__(self, address: str, connect_seconds: float = 30) -> None:
        self.address = address
        self.connect_seconds = connect_seconds
        self.client = None

    def __enter__(self) -> DaskExecutor:
        try:
            from distributed import Client
        except ImportError:
            raise ClusterUnavailable("--scheduler needs dask.distributed: pip install 'replay-site[dask]'") from None
        try:
            self.client = Client(self.address, timeout=self.connect_seconds, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterUnavailable(f"--scheduler {self.address}: no dask scheduler answers ({exc})") from None
        return self

    def __exit__(self, *_exc) -> None:
        self.client.close()

    @staticmethod
    def end_workers() -> None:
        """The cluster's workers stay (the client closes with the build)."""

    @staticmethod
    def reading_done(_prepare: Callable[[], None]) -> None:
        """The cluster's workers keep what they loaded: each process of theirs may read again."""

    def map(self, function: Callable, items: Iterable[Any]) -> Iterator[Any]:
        """function(item) for each item as cluster tasks, results in the items' order, each
        task's result released once taken."""
        items = list(items)
        run = uuid.uuid4().hex[:12]
        keys = [f"replay-site-{_task_name(function)}-{run}-{index}" for index in range(len(items))]
        futures = self.client.map(function, items, key=keys, pure=False, retries=RETRIES)
        for future in futures:
            yield future.result()
            future.release()
