"""Worker processes change nothing but the time: a build with two workers writes the same
bytes as a build in one process."""
from __future__ import annotations

import gc
from pathlib import Path

from replay_site.build import pipeline as site

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
