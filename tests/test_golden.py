"""example_output/ is the golden site: rebuilt from the bundled examples it must not change.

Regenerate after an intended change with:  UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from replay_site.pipeline import stages as site
from replay_site.cli.build_command import EXAMPLES_TITLE
from replay_site.load import examples_dir

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "example_output"


def test_example_output_matches_a_fresh_build(tmp_path):
    out = tmp_path / "site"
    # What a first `replay-site build` on a machine without logs writes.
    result = site.build([examples_dir()], out, site.BuildOptions(title=EXAMPLES_TITLE))
    assert result.problems == []  # the examples are clean: no warnings on a first run
    if os.environ.get("UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(out, GOLDEN)
    built = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    golden = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file())
    assert built == golden, "example_output is stale: run UPDATE_GOLDEN=1 pytest tests/test_golden.py"
    for name in built:
        assert (out / name).read_bytes() == (GOLDEN / name).read_bytes(), f"{name} differs: run UPDATE_GOLDEN=1 pytest tests/test_golden.py"
