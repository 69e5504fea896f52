"""Where a one-process cold build's CPU goes (a measurement, not a test): README's profile.

    python tests/profile_build.py SOURCE [--jobs 1]

cProfile with a CPU timer over pipeline.build of SOURCE into a fresh folder with an empty
cache, split into the two passes and the rest, with the self time of the readers, our
redaction, pricing, the templates, the view models and search. Shares, not seconds: cProfile's
cost per call inflates the parts that make many small calls.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("--jobs", type=int, default=1)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="profile-build-") as work:
        os.environ["XDG_CACHE_HOME"] = str(Path(work) / "cache")
        from replay_site.pipeline import stages as site

        profile = cProfile.Profile(time.process_time)
        profile.enable()
        site.build([arguments.source], Path(work) / "site", site.BuildOptions(jobs=arguments.jobs))
        profile.disable()
    stats = pstats.Stats(profile).stats
    total = sum(row[2] for row in stats.values())

    def self_time(*parts: str) -> float:
        return sum(row[2] for (path, _line, _name), row in stats.items() if any(part in path for part in parts))

    def inclusive(path_end: str, function: str) -> float:
        return max((row[3] for (path, _line, name), row in stats.items() if path.endswith(path_end) and name == function), default=0.0)

    pass_one = inclusive("build/source_passes.py", "read_and_summarize")
    pass_two = inclusive("build/source_passes.py", "write_source_pages")
    rows = [("pass 1: reading, redacting, summarizing and spooling each log", pass_one),
            ("  the readers (self)", self_time("/replay_site/readers/")),
            ("  secret redaction, ours (self)", self_time("/replay_site/redact/", "/replay_site/catalogue.py")),
            ("  pricing (self)", self_time("/replay_site/costs/", "genai_prices")),
            ("pass 2: session pages from the spool", pass_two),
            ("  jinja2 templates (self)", self_time("jinja2", "/templates/", "<template>")),
            ("  view models (self)", self_time("/replay_site/pages/views")),
            ("  search shards (self)", self_time("/replay_site/pages/search.py")),
            ("imports, discovery, site-wide files", total - pass_one - pass_two)]
    print(f"{total:.2f} s of CPU profiled")
    for name, seconds in rows:
        print(f"{name:64s} {100 * seconds / total:5.1f}%")


if __name__ == "__main__":
    main()
