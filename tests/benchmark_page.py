"""Page benchmark (not a test: speed is measured here, never asserted in tests).

    python tests/benchmark_page.py [--steps 10000] [--runs 5]

Writes a deterministic Claude Code session of --steps tool steps (tests/gen_long_session.py),
builds a site from it, and opens the session's first page in headless Chromium from file://
--runs times, printing the page's bytes, its element count, and the median time to
DOMContentLoaded and to load. Also reports the same for the page that holds the last step,
and the session's search shard size. Goal (issue 8): at most 40,000 elements and 2 s a page.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_long_session import write_long_claude_session  # noqa: E402
from test_browser import CHROMIUM, LAUNCH_ARGS  # noqa: E402

from replay_site import paging, search, site  # noqa: E402


def measure(browser, page_file: Path, runs: int) -> dict:
    loads, ready, elements = [], [], 0
    for _ in range(runs):
        context = browser.new_context()
        page = context.new_page()
        page.goto(page_file.as_uri(), wait_until="load")
        timing = page.evaluate("""() => { const t = performance.getEntriesByType('navigation')[0];
            return [t.domContentLoadedEventEnd, t.loadEventEnd]; }""")
        ready.append(timing[0] / 1000)
        loads.append(timing[1] / 1000)
        elements = page.evaluate("document.getElementsByTagName('*').length")
        context.close()
    return {"bytes": page_file.stat().st_size, "elements": elements,
            "dcl": statistics.median(ready), "load": statistics.median(loads)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as temp:
        logs = Path(temp) / "logs"
        logs.mkdir()
        write_long_claude_session(logs / "long.jsonl", steps=args.steps)
        start = time.perf_counter()
        result = site.build([logs], Path(temp) / "site", site.BuildOptions())
        built = time.perf_counter() - start
        out = Path(temp) / "site"
        summary = max(result.summaries, key=lambda s: s.steps)
        slug = Path(summary.page).stem
        print(f"{summary.steps} steps, {paging.page_count(summary.steps)} pages, built in {built:.1f} s; "
              f"search shard {(out / search.shard_name(slug)).stat().st_size:,} bytes")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            pages = {"first page": paging.page_path(slug, 1),
                     "last page": paging.page_path(slug, paging.page_count(summary.steps))}
            for label, path in pages.items():
                if not (out / path).exists():
                    print(f"{label}: {path} was not written (this build does not split sessions into pages)")
                    continue
                figures = measure(browser, out / path, args.runs)
                print(f"{label} ({path}): {figures['bytes']:,} bytes, {figures['elements']:,} elements, "
                      f"DOMContentLoaded {figures['dcl']:.2f} s, load {figures['load']:.2f} s "
                      f"(medians of {args.runs} runs)")
            browser.close()


if __name__ == "__main__":
    main()
