"""example_output/ is the golden site: rebuilt from tests/data it must not change.

Regenerate after an intended change with:  UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from replay_site import site

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "example_output"


def test_example_output_matches_a_fresh_build(tmp_path):
    out = tmp_path / "site"
    site.build([REPO / "tests" / "data"], out, site.BuildOptions(title="replay-site examples"))
    if os.environ.get("UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(out, GOLDEN)
    built = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    golden = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file())
    assert built == golden, "example_output is stale: run UPDATE_GOLDEN=1 pytest tests/test_golden.py"
    for name in built:
        assert (out / name).read_bytes() == (GOLDEN / name).read_bytes(), f"{name} differs: run UPDATE_GOLDEN=1 pytest tests/test_golden.py"
