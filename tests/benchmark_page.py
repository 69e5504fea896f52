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
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_long_session import write_long_claude_session  # noqa: E402
from test_browser import CHROMIUM, LAUNCH_ARGS  # noqa: E402

from replay_site.pipeline import stages as site  # noqa: E402
from replay_site.pages import paging, search


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


def size_search_files(sessions: int, words: int, out: Path) -> None:
    rng = random.Random(8)
    letters = "abcdefghijklmnopqrstuvwxyz0123456789_"
    vocabulary = sorted({"".join(rng.choices(letters[:26], k=rng.randint(3, 6))) + "".join(rng.choices(letters, k=rng.randint(0, 6)))
                         for _ in range(400_000)})
    rng.shuffle(vocabulary)
    cumulative, total = [], 0.0
    for rank in range(len(vocabulary)):
        total += 1 / (rank + 1)
        cumulative.append(total)
    listed = []
    for number in range(sessions):
        slug = f"session-{number:05d}-{rng.getrandbits(32):08x}"
        chosen = set(rng.choices(vocabulary, cum_weights=cumulative, k=words * 2))
        (out / search.terms_name(slug)).parent.mkdir(parents=True, exist_ok=True)
        (out / search.terms_name(slug)).write_text("\n".join(sorted(chosen)[:words]))
        (out / search.shard_name(slug)).write_bytes(b"x" * 20_000)
        listed.append(type("Listed", (), {"page": f"sessions/{slug}.html", "title": "A session title of a typical length, sixty characters long."}))
    start, cpu = time.perf_counter(), time.process_time()
    files = search.site_files(out, listed)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    index = files.pop("assets/search-index.js")
    buckets = {name.rsplit("/", 1)[1].removesuffix(".js"): len(data) for name, data in files.items()}
    common = vocabulary[:2]  # the two most frequent words
    keys = {key for word in common for key in (search.bucket_of(word, 2), search.bucket_of(word, 3)) if key in buckets}
    first = len(index) + sum(buckets[key] for key in keys)
    print(f"search, {sessions} sessions x {words} words: index {len(index):,} bytes, {len(buckets)} term buckets "
          f"(largest {max(buckets.values()):,} bytes, total {sum(buckets.values()):,}); "
          f"a first search for {' '.join(common)!r} loads {first:,} bytes before shards; written in {seconds:.1f} s ({cpu:.1f} s CPU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--search-sessions", type=int, default=0)
    parser.add_argument("--words", type=int, default=3000)
    args = parser.parse_args()
    if args.search_sessions:
        with tempfile.TemporaryDirectory() as temp:
            size_search_files(args.search_sessions, args.words, Path(temp))
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
