"""Worker processes change nothing but the time: a build with two workers writes the same
bytes as a build in one process."""
from __future__ import annotations

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
