"""Builds that survive live logs: the default folders hold the session running right now,
so lines are appended while a build runs. A build reads each log once, so its pages agree
with its sessions.json whatever is appended when; nothing crashes; and the cache never
pairs the new bytes with what was read before them."""
from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from replay_site.pipeline import stages as site

DATA = Path(__file__).parent / "data"
CLAUDE_MAIN = "claude/-home-dev-calc-demo/5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c.jsonl"
GPTME_MAIN = "gptme/markdown-hello/conversation.jsonl"


@pytest.fixture
def logs(tmp_path) -> Path:
    folder = tmp_path / "logs"
    shutil.copytree(DATA / "claude" / "-home-dev-calc-demo", folder / "claude" / "-home-dev-calc-demo")
    shutil.copytree(DATA / "gptme" / "markdown-hello", folder / "gptme" / "markdown-hello")
    for name in (CLAUDE_MAIN, GPTME_MAIN):
        if not (folder / name).read_bytes().endswith(b"\n"):  # the fixture ends in a torn line
            append(folder / name, "\n")
    return folder


def sidechain_line(number: int) -> str:
    """An old-style inline subagent line (FORMATS.md, Claude Code: `isSidechain: true` in the
    main file) with a new agent id: each one adds a child session, the case that once crashed
    the build with a KeyError when it landed between the passes."""
    return json.dumps({
        "isSidechain": True, "agentId": f"live{number}", "type": "user", "sessionId": "5b1e7c2a-3f4d-4e6a-9b8c-0d1e2f3a4b5c",
        "uuid": f"f0000000-0000-4000-8000-{number:012d}", "parentUuid": None, "timestamp": "2025-11-03T10:00:00.000Z",
        "message": {"role": "user", "content": f"live subagent task {number}"},
    }) + "\n"


def gptme_line(number: int) -> str:
    return json.dumps({"role": "user", "content": f"one more question {number}", "timestamp": "2026-03-02T11:00:00"}) + "\n"


def append(log: Path, text: str) -> None:
    with log.open("a") as stream:
        stream.write(text)


def assert_pages_agree_with_sessions_json(out: Path) -> None:
    document = json.loads((out / "sessions.json").read_text())
    pages = sorted(p.relative_to(out).as_posix() for p in (out / "sessions").glob("*.html"))
    assert sorted(s["page"] for s in document["sessions"]) == pages
    for summary in document["sessions"]:
        # a long session's later pages are sessions/<slug>/<k>.html (paging.py)
        later = sorted((out / summary["page"]).with_suffix("").glob("[0-9]*.html"))
        steps = []
        for page in [out / summary["page"], *later]:
            soup = BeautifulSoup(page.read_text(), "html.parser")
            steps += [tag for tag in soup.select('[id^="step-"]') if re.fullmatch(r"step-\d+", tag["id"])]
        assert len(steps) == summary["steps"], summary["page"]


def test_lines_appended_between_the_passes_change_nothing_in_this_build(logs, tmp_path, monkeypatch):
    """Deterministic: a new subagent and a new user turn land exactly between pass 1 and 2."""
    original = site.navigation
    appended = []

    def navigation_then_append(summaries):
        append(logs / CLAUDE_MAIN, sidechain_line(len(appended)))
        append(logs / GPTME_MAIN, gptme_line(len(appended)))
        appended.append(1)
        return original(summaries)

    monkeypatch.setattr(site, "navigation", navigation_then_append)
    out = tmp_path / "site"
    result = site.build([logs], out, site.BuildOptions())
    assert appended and not [p for p in result.problems if "changed" in p.message]
    assert_pages_agree_with_sessions_json(out)
    before = len(json.loads((out / "sessions.json").read_text())["sessions"])

    monkeypatch.setattr(site, "navigation", original)
    site.build([logs], out, site.BuildOptions())  # the next build sees the new lines
    after = json.loads((out / "sessions.json").read_text())["sessions"]
    assert len(after) == before + 1  # the subagent appended during the first build
    assert_pages_agree_with_sessions_json(out)
    full = tmp_path / "full"
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert (full / "sessions.json").read_bytes() == (out / "sessions.json").read_bytes()


@pytest.mark.parametrize("incremental", [True, False])
def test_builds_while_another_thread_appends_never_crash_and_agree_with_themselves(logs, tmp_path, incremental):
    stop = threading.Event()

    def writer() -> None:
        # Bounded, so that the builds stay small: a new step every few milliseconds, a new
        # subagent every tenth line.
        for number in range(1000, 1400):
            if stop.is_set():
                return
            append(logs / GPTME_MAIN, gptme_line(number))
            if number % 10 == 0:
                append(logs / CLAUDE_MAIN, sidechain_line(number))
            stop.wait(0.003)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        out = tmp_path / "site"
        for _ in range(12):
            site.build([logs], out, site.BuildOptions(incremental=incremental))
            assert_pages_agree_with_sessions_json(out)
    finally:
        stop.set()
        thread.join()
    # Once the log is quiet, an incremental build catches up with everything appended.
    site.build([logs], out, site.BuildOptions())
    full = tmp_path / "full"
    site.build([logs], full, site.BuildOptions(incremental=False))
    assert (full / "sessions.json").read_bytes() == (out / "sessions.json").read_bytes()
    assert_pages_agree_with_sessions_json(out)
