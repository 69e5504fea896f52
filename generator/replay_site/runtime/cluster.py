"""The build's tasks on a dask.distributed cluster (`--scheduler ADDRESS`, extra `[dask]`), with
the executor interface of executors.py, so the pipeline is the same whichever runs its tasks.
Only what a task returns travels back to the build (a source's summaries, problems and file
states; the names of the files it wrote): the workers read the sources and write the pages
themselves, so they must see the same paths (a shared folder or the same machine) or URLs.

A task that left its sessions on its worker's disk (pass 1's spool) gives its worker's address
as its place, and the task that reads them (pass 2) runs there: each log is read once. Should
that worker be gone, the task runs elsewhere and reads the log again.

A task is retried when its worker dies (the scheduler moves it to another worker): a task
writes each file whole (store/writer.py), so one run halfway through leaves nothing a retry
does not replace.
"""
from __future__ import annotations

import uuid
from functools import partial
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from replay_site.runtime.places import Place

# Besides the scheduler's own rescheduling of tasks whose worker died (up to its
# `allowed-failures`), a task that raised is tried again this many times.
RETRIES = 2


class ClusterUnavailable(Exception):
    """--scheduler names a cluster this build cannot use (dask missing, no scheduler there)."""


def _task_name(function: Callable) -> str:
    inner = getattr(function, "func", function)  # a functools.partial names its function
    return getattr(inner, "__name__", "task").lstrip("_")


def _placed(function: Callable, item: Any) -> tuple[Any, Place]:
    from distributed import get_worker

    return function(item), get_worker().address


class DaskExecutor:
    """Tasks on the cluster whose scheduler listens at `address` (tcp://host:port)."""

    def __init__(self, address: str, connect_seconds: float = 30) -> None:
        self.address = address
        self.connect_seconds = connect_seconds
        self.client = None
        self.processes = 1

    def __enter__(self) -> DaskExecutor:
        try:
            from distributed import Client
        except ImportError:
            raise ClusterUnavailable("--scheduler needs dask.distributed: pip install 'replay-site[dask]'") from None
        try:
            self.client = Client(self.address, timeout=self.connect_seconds, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ClusterUnavailable(f"--scheduler {self.address}: no dask scheduler answers ({exc})") from None
        self.processes = max(1, len(self.client.scheduler_info().get("workers", {})))
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None

    def map(self, function: Callable, items: Iterable[Any], places: Sequence[Place] | None = None) -> Iterator[Any]:
        """function(item) for each item as cluster tasks, results in the items' order, each
        task's result released once taken."""
        return self._map(function, items, places, _task_name(function))

    def map_placed(self, function: Callable, items: Iterable[Any]) -> Iterator[tuple[Any, Place]]:
        return self._map(partial(_placed, function), items, None, _task_name(function))

    def _map(self, function: Callable, items: Iterable[Any], places: Sequence[Place] | None, name: str) -> Iterator[Any]:
        items = list(items)
        run = uuid.uuid4().hex[:12]
        futures = []
        for index, item in enumerate(items):
            where = {"workers": [places[index]], "allow_other_workers": True} if places and places[index] else {}
            futures.append(self.client.submit(function, item, key=f"replay-site-{name}-{run}-{index}", pure=False,
                                              retries=RETRIES, **where))
        for index, future in enumerate(futures):
            yield future.result()
            future.release()
            futures[index] = None
