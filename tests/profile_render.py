"""Where the time of one long session's render goes (a measurement, not a test).

    python tests/profile_render.py [--steps 10000] [--cprofile]

Writes a deterministic Claude Code log (gen_long_session.py), reads and prices it, renders
all its pages twice (the first warms caches) and prints the second render's time split into
markdown, pygments, view models (views.page_view, step_view) and the templates themselves.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from gen_long_session import write_long_claude_session  # noqa: E402
from sitetools import render_whole  # noqa: E402

from replay_site.costs import price_session  # noqa: E402
from replay_site.discover import discover, pick_readers  # noqa: E402
from replay_site.figures.summary import page_slug, summarize  # noqa: E402
from replay_site.pages import highlight, views  # noqa: E402
from replay_site.readers import registry  # noqa: E402

SPENT = {"markdown": 0.0, "pygments": 0.0, "view models": 0.0}


def _timed(name, function):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            SPENT[name] += time.perf_counter() - start
    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--cprofile", action="store_true", help="also print cProfile's top functions")
    args = parser.parse_args()
    # patched before the renderer binds them as template filters
    highlight.markdown = _timed("markdown", highlight.markdown)
    highlight.code = _timed("pygments", highlight.code)
    views.page_view = _timed("view models", views.page_view)
    views.step_view = _timed("view models", views.step_view)  # made as the steps' template asks (views_steps.StepViews)
    from replay_site.pages.render import PageNav, Renderer

    with tempfile.TemporaryDirectory() as temp:
        log = write_long_claude_session(Path(temp) / "-home-dev-long" / "long.jsonl", args.steps)
        (source,) = discover([log.parent], pick_readers("claude"), [])
        (session,) = registry()["claude"].read(source)
    price_session(session, None)
    summary = summarize(session, "Claude Code", "sessions/long.html", "sessions/long.html")
    renderer, nav = Renderer(), PageNav(page_slug(session, session.source))
    render_whole(renderer, session, summary, nav)
    SPENT.update(dict.fromkeys(SPENT, 0.0))
    start = time.perf_counter()
    files = render_whole(renderer, session, summary, nav)
    total = time.perf_counter() - start
    templates = total - sum(SPENT.values())
    pages = sum(name.endswith(".html") for name in files)
    print(f"{len(session.steps)} steps, {pages} pages: render {total:.2f}s = "
          + ", ".join(f"{name} {seconds:.2f}s" for name, seconds in SPENT.items())
          + f", templates {templates:.2f}s ({templates / total:.0%})")
    if args.cprofile:
        profile = cProfile.Profile()
        profile.runcall(render_whole, renderer, session, summary, nav)
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
