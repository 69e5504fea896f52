"""Build-speed benchmark (not a test: speed is measured here, never asserted in tests).

    python tests/benchmark.py [--copies N] [--jobs 1 2 ...]

Builds a site from N copies of the real corpus (../shared/corpus, or REPLAY_SITE_CORPUS),
falling back to tests/data, once per --jobs value, and prints sessions, steps and seconds.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from conftest import CORPUS, DATA  # noqa: E402

from replay_site import site  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    origin = CORPUS if CORPUS.is_dir() else DATA
    with tempfile.TemporaryDirectory() as temp:
        logs = Path(temp) / "logs"
        for copy in range(args.copies):
            shutil.copytree(origin, logs / f"copy-{copy}", ignore=shutil.ignore_patterns("*.md"))
        print(f"{args.copies} copies of {origin}")
        for jobs in args.jobs:
            out = Path(temp) / f"site-{jobs}"
            start = time.perf_counter()
            result = site.build([logs], out, site.BuildOptions(jobs=jobs))
            seconds = time.perf_counter() - start
            print(f"jobs={jobs}: {len(result.summaries)} sessions, {result.steps} steps in {seconds:.2f}s "
                  f"({result.steps / seconds:.0f} steps/s)")


if __name__ == "__main__":
    main()
