"""The benchmark still runs (CI's smoke run, no thresholds: speed is measured, never asserted)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).parent / "benchmark.py"


@pytest.mark.slow
def test_the_benchmark_runs_on_the_small_corpus():
    result = subprocess.run([sys.executable, str(BENCHMARK), "--size", "small", "--runs", "1"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    for scenario in ("floor, 1 process", "cold build", "rebuild, nothing changed", "one log touched", "one turn appended"):
        assert f"| {scenario}" in result.stdout
