"""A cut output shows its beginning and its end (the verdict), the middle elided and linked to
the full text; an error output is never in a small box; a search hit in the indexed end of a
long output lands on words the page shows. The log is written here (a Claude Code session
of three lines, FORMATS.md (e)): one failed `pytest` whose output is 90 KB.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from test_browser import browser, watched_page  # noqa: F401  (the module's chromium fixture)

from replay_site.pipeline import stages as site
from replay_site.pages import search, views_steps

SESSION = "c0700000-0000-4000-8000-0000000000cu"
# 2,250 lines of 40 characters: 90,000 characters, then the verdict on the last line
PASSED = [f"tests/test_cut.py::test_case_{n:05d} PASSED\n" for n in range(2_250)]
MIDDLE = "tests/test_cut.py::test_case_01100 PASSED"  # character 44,000: in the elided middle
VERDICT = "==== 1 failed, 2249 passed in 12.34s verdictword ===="
OUTPUT = "".join(PASSED) + VERDICT


def _line(number: int, kind: str, message: dict, **extra) -> str:
    record = {"parentUuid": f"c0700000-0000-4000-8000-{number - 1:012d}" if number > 1 else None, "isSidechain": False,
              "userType": "external", "cwd": "/home/dev/cut", "sessionId": SESSION, "version": "2.1.4", "gitBranch": "main",
              "type": kind, "uuid": f"c0700000-0000-4000-8000-{number:012d}", "timestamp": f"2026-01-22T08:00:0{number}.000Z",
              "message": message, **extra}
    return json.dumps(record) + "\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    logs = tmp_path_factory.mktemp("cut-logs")
    folder = logs / "-home-dev-cut"
    folder.mkdir()
    call = {"type": "tool_use", "id": "toolu_cut", "name": "Bash", "input": {"command": "pytest -q", "description": "run the tests"}}
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    result = {"type": "tool_result", "tool_use_id": "toolu_cut", "content": OUTPUT, "is_error": True}
    lines = [
        _line(1, "user", {"role": "user", "content": "Run the test suite"}),
        _line(2, "assistant", {"id": "msg_cut", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                               "content": [call], "stop_reason": "tool_use",
                               "usage": usage},
              requestId="req_cut"),
        _line(3, "user", {"role": "user", "content": [result]}, toolUseResult=f"Error: {OUTPUT}"),
    ]
    (folder / f"{SESSION}.jsonl").write_text("".join(lines))
    out = tmp_path_factory.mktemp("cut-site")
    site.build([logs], out, site.BuildOptions())
    entry = json.loads((out / "sessions.json").read_text())["sessions"][0]
    return out, out / entry["page"]


def test_the_last_line_of_a_90_kb_output_is_on_the_page(built):
    _, page_file = built
    page = BeautifulSoup(page_file.read_text(), "html.parser")
    output = page.select_one("details.output")
    assert len(OUTPUT) > 90_000 and len(OUTPUT) > views_steps.FIELD_LIMIT
    head, tail = output.select("pre.output-text")
    # the beginning: FIELD_LIMIT - TAIL_SHOWN = 40,000 characters; the end: the last 10,000
    assert head.get_text() == OUTPUT[:40_000] and head.get_text().startswith(PASSED[0])
    assert tail.get_text() == OUTPUT[-10_000:] and tail.get_text().endswith(VERDICT)
    assert MIDDLE not in output.get_text()
    # the middle is said, and linked to the whole text beside the page
    note = output.select_one("p.cut")
    assert f"{len(OUTPUT) - 50_000:,} characters elided" in note.get_text()
    full = page_file.parent / note.a["href"]
    assert full.read_text() == OUTPUT
    # a failed call's output starts open
    assert output.has_attr("open") and "failed" in output["class"]


def test_search_indexes_no_more_than_the_page_shows():
    assert search.HEAD <= views_steps.FIELD_LIMIT - views_steps.TAIL_SHOWN and search.TAIL <= views_steps.TAIL_SHOWN


def test_a_hit_in_the_end_of_a_long_output_lands_on_shown_words_and_errors_are_not_boxed(browser, built):
    _, page_file = built
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = watched_page(context)
    page.goto(page_file.as_uri())
    # an error output is shown whole, never in a box of its own height
    heights = page.evaluate("[...document.querySelectorAll('details.output.failed pre.output-text')]"
                            ".map(p => getComputedStyle(p).maxHeight)")
    assert heights == ["none", "none"]
    page.locator("#search-input").fill("verdictword")
    hit = page.locator("#search-results .hit-link").first
    hit.wait_for()
    hit.click()
    page.wait_for_url(re.compile(r"#step-\d+$"))
    # the search marks the word where the page shows it, on screen
    shown = page.evaluate("""(() => {
        const hit = CSS.highlights.get('search-hit');
        if (!hit) return null;
        const range = [...hit][0];
        const box = range.getBoundingClientRect();
        return {text: range.toString(), top: box.top, bottom: box.bottom, width: box.width};
    })()""")
    assert shown is not None and shown["text"].lower() == "verdictword"
    assert shown["width"] > 0 and 0 <= shown["top"] and shown["bottom"] <= 800
    assert page.errors == [] and page.remote == []
    context.close()
