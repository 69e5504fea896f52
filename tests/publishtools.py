"""Helpers for tests of publishing: a folder's exact contents, and what lies beside it."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from replay_site.store import publish

DATA = Path(__file__).parent / "data"


def copy_logs(folder: Path, formats: tuple[str, ...] = ("glue", "gptme")) -> Path:
    """Example logs of a few formats in a folder of the test's own, free to change."""
    for name in formats:
        shutil.copytree(DATA / name, folder / name)
    return folder


def snapshot(folder: Path) -> dict[str, bytes | str | None]:
    """Every entry under `folder`: file bytes, a symlink's target, None for a folder."""
    found = {}
    for rel, entry in publish.walk(folder):
        if entry.is_symlink():
            found[rel] = "-> " + os.readlink(entry.path)
        else:
            found[rel] = None if entry.is_dir() else Path(entry.path).read_bytes()
    return found


def siblings(out: Path) -> list[str]:
    """replay-site's staging and old-site folders beside `out`."""
    return sorted(p.name for p in out.parent.iterdir() if ".replay-site-" in p.name)
