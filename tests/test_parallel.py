"""Worker processes change nothing but the time: a build with two workers writes the same
bytes as a build in one process. The build process runs items itself beside its workers
(executors.WorkerPool.map), and hands on every result, or an item's error, in the items' order."""
from __future__ import annotations

import gc
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from replay_site.build import pipeline as site
from replay_site.build.executors import WorkerPool

DATA = Path(__file__).parent / "data"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_parallel_and_serial_builds_are_byte_identical(tmp_path):
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    site.build([DATA], serial, site.BuildOptions(jobs=1, incremental=False))
    site.build([DATA], parallel, site.BuildOptions(jobs=2, incremental=False))
    pages = snapshot(serial)
    assert len([name for name in pages if name.startswith("sessions/")]) > 10
    assert snapshot(parallel) == pages


def test_rendering_leaves_frozen_objects_frozen(tmp_path):
    """A worker forked from the fork server shares its frozen objects page by page: rendering
    must not thaw them (gc.unfreeze would), and it gives back the collector's thresholds."""
    gc.freeze()
    frozen, thresholds = gc.get_freeze_count(), gc.get_threshold()
    try:
        site.build([DATA / "glue"], tmp_path / "site", site.BuildOptions(jobs=1, incremental=False))
        # (fewer by the frozen objects freed meanwhile; gc.unfreeze would leave none)
        assert gc.get_freeze_count() > frozen // 2 and gc.get_threshold() == thresholds
    finally:
        gc.unfreeze()


def square_where(item: int) -> tuple[int, int]:
    time.sleep(0.02)  # long enough that the worker and this process both take items
    if item == 13:
        raise ValueError("item 13")
    return item * item, os.getpid()


def test_the_build_process_runs_items_beside_its_worker():
    with WorkerPool(2, multiprocessing.get_context("fork")) as pool:
        results = list(pool.map(square_where, range(12)))
    assert [square for square, _ in results] == [item * item for item in range(12)]
    # two processes ran the items: this one and the pool's one worker
    assert {pid for _, pid in results} - {os.getpid()} and os.getpid() in {pid for _, pid in results}


def test_an_items_error_reaches_the_caller_after_the_results_before_it():
    handed = []
    with pytest.raises(ValueError, match="item 13"), WorkerPool(2, multiprocessing.get_context("fork")) as pool:
        for square, _ in pool.map(square_where, range(20)):
            handed.append(square)
    assert handed == [item * item for item in range(13)]
