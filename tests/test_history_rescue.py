"""History rescue (readers/claude/history.py): the sessions Claude Code's history.jsonl lists
whose log is neither on disk nor in the archive get a page of their prompts and times, marked
as prompts only, counted in the index's account line; and the index says once which setting
to raise when Claude Code deletes transcripts after 30 days or fewer.

The fixture, tests/data/claude-history/history.jsonl.txt, is described line by line in the
README beside it: of its seven lines, two sessions (e1…0001, two prompts; e1…0002, one) are
rescued; d1…0001 is on disk, e1…0003 archived, the first line names no session, the fourth is
cut off."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from replay_site.pipeline import stages as site

from conftest import DATA, copy_as_another

HISTORY = DATA / "claude-history" / "history.jsonl.txt"
FIRST, SECOND, ARCHIVED = (f"e1000000-0000-4000-8000-00000000000{n}" for n in (1, 2, 3))
MARK = "prompts only — the log was deleted before replay-site archived it"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A home with Claude Code's folders: one session on disk (-home-dev-clean), another
    (e1…0003) that a first build archives and that is then deleted, and history.jsonl."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    projects = tmp_path / ".claude" / "projects"
    shutil.copytree(DATA / "claude" / "-home-dev-clean", projects / "-home-dev-clean")
    copy_as_another(DATA / "claude" / "-home-dev-clean", tmp_path / "other")
    log = next((tmp_path / "other").glob("*.jsonl"))
    log.rename(projects / "-home-dev-clean" / f"{ARCHIVED}.jsonl")
    shutil.copy(HISTORY, tmp_path / ".claude" / "history.jsonl")
    return tmp_path


def build(home: Path, **more) -> tuple[site.BuildResult, Path]:
    out = home / "site"
    options = site.BuildOptions(archive=str(home / "archive"), **more)
    return site.build([home / ".claude" / "projects"], out, options), out


def sessions(out: Path) -> dict[str, dict]:
    """By log file name (the archived copy of -home-dev-clean holds that session's id)."""
    return {Path(s["source"]).stem: s for s in json.loads((out / "sessions.json").read_text(encoding="utf-8"))["sessions"]}


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_deleted_sessions_get_their_prompts_and_times(home):
    result, out = build(home)  # archives d1…0001 and e1…0003
    (home / ".claude" / "projects" / "-home-dev-clean" / f"{ARCHIVED}.jsonl").unlink()
    result, out = build(home)
    found = sessions(out)
    # the two rescued, beside the one on disk and the one from the archive; never the unplaced line
    assert sorted(found) == sorted(["d1000000-0000-4000-8000-000000000001", FIRST, SECOND, ARCHIVED])
    assert [found[i]["prompts_only"] for i in (FIRST, SECOND)] == [True, True]
    assert not found[ARCHIVED]["prompts_only"] and found[ARCHIVED]["kept_since"]
    assert not found["d1000000-0000-4000-8000-000000000001"]["prompts_only"]
    first = found[FIRST]
    assert first["id"] == FIRST and first["source"] == f"-home-dev-clean/{FIRST}.jsonl"
    assert first["steps"] == 2 and first["cost_usd"] is None and first["project"] == "-home-dev-clean"
    assert first["started_at"].startswith("2026-01-08T09:00:00") and first["title"] == "Find why the nightly export is slow"
    assert found[SECOND]["project"] == "-home-dev-other-app"
    # the cut-off line is one warning naming history.jsonl and its line
    cut = [p for p in result.problems if p.kind == "bad_line"]
    assert len(cut) == 1 and cut[0].path.endswith("history.jsonl") and cut[0].line == 4

    page = soup(out / first["page"])
    assert MARK in page.select_one("p.prompts-only").get_text().lower()
    steps = [step.get_text(" ", strip=True) for step in page.select("li.step")]
    assert len(steps) == 2 and all(step.startswith("#") for step in steps) and page.select("li.step.kind-user") == page.select("li.step")
    assert "2026-01-08 09:00:00 UTC Find why the nightly export is slow" in steps[0]  # each prompt with its time
    assert "09:05:30 UTC Here is the profile" in steps[1] and "export 41.2 s" in steps[1]  # the paste history.jsonl kept inline
    second = soup(out / found[SECOND]["page"])
    assert "(not kept in history.jsonl)" in second.select_one("li.step").get_text()  # the paste kept only by hash
    assert second.find("upload") is None and "<upload>" in second.select_one("li.step").get_text()  # markup in a prompt is text
    # the page of a session from the archive carries its own notice, not this one
    assert soup(out / found[ARCHIVED]["page"]).select_one("p.prompts-only") is None

    index = soup(out / "index.html")
    marks = index.select("td.title .prompts-only")
    assert len(marks) == 2 and all(MARK in mark.get_text() for mark in marks)
    assert "2 sessions of prompts only (log deleted before it was archived)" in index.select_one("#inputs").get_text()
    document = json.loads((out / "sessions.json").read_text(encoding="utf-8"))
    assert document["inputs"]["sessions_prompts_only"] == 2 and document["inputs"]["sessions_from_archive"] == 1


def test_a_rescued_session_whose_log_comes_back_is_read_from_its_log(home):
    _, out = build(home)
    assert sessions(out)[FIRST]["prompts_only"]
    # its log turns up again (restored by hand): the log is read, the prompts-only page goes
    back = home / ".claude" / "projects" / "-home-dev-clean" / f"{FIRST}.jsonl"
    copy_as_another(DATA / "claude" / "-home-dev-clean", home / "again")
    next((home / "again").glob("*.jsonl")).rename(back)
    _, out = build(home)
    assert FIRST not in sessions(out) or not sessions(out)[FIRST]["prompts_only"]
    assert sum(s["prompts_only"] for s in sessions(out).values()) == 1


def test_a_single_project_folder_rescues_its_own_sessions_only(home):
    out = home / "one"
    site.build([home / ".claude" / "projects" / "-home-dev-clean"], out, site.BuildOptions(archive=str(home / "archive")))
    rescued = [s for s in sessions(out).values() if s["prompts_only"]]
    assert [s["id"] for s in rescued] == [FIRST]  # e1…0002 is of /home/dev/other.app


def test_the_rebuild_keeps_rescued_pages_unchanged(home):
    _, out = build(home)
    before = {s["page"]: (out / s["page"]).read_bytes() for s in sessions(out).values()}
    _, out = build(home)
    assert {s["page"]: (out / s["page"]).read_bytes() for s in sessions(out).values()} == before


@pytest.mark.parametrize(("settings", "hinted"), [(None, True), ({"cleanupPeriodDays": 14}, True),
                                                  ({"cleanupPeriodDays": 365}, False)])
def test_the_index_names_the_setting_to_raise_once(home, settings, hinted):
    if settings is not None:
        (home / ".claude" / "settings.json").write_text(json.dumps(settings))
    _, out = build(home)
    hints = soup(out / "index.html").select("p.hint")
    assert len(hints) == (1 if hinted else 0)
    if hinted:
        text = hints[0].get_text()
        days = (settings or {}).get("cleanupPeriodDays", 30)
        assert f"after {days} days" in text and '"cleanupPeriodDays" in ~/.claude/settings.json' in text
        assert str(home) not in text  # the published index does not show the user's home
