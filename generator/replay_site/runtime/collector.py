"""The garbage collector while a build's tasks run."""
from __future__ import annotations

import gc
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

# A task makes millions of objects that live as long as a step or a page; at Python's default
# thresholds (700, 10, 10) the collector walks what is still alive again and again, the whole
# heap at each full collection. The one trick the runtime keeps: the 10,000-step benchmark
# session's cold build, 6.8 s of CPU at the defaults and 5.1 s at these (-24%; docs/CONTRIBUTING.md).
TASK_GC_THRESHOLDS = (50_000, 50, 1_000)


@contextmanager
def fewer_collections():
    """The collector at TASK_GC_THRESHOLDS while a task runs in this process."""
    saved = gc.get_threshold()
    gc.set_threshold(*TASK_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*saved)


def run_with_fewer_collections(function: Callable, item: Any) -> Any:
    with fewer_collections():
        return function(item)
