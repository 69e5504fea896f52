"""The sessions of the readers added for issue 31 (OpenCode, Pi, GitHub Copilot CLI, Aider, Goose, Kimi CLI, Cursor's agent CLI) in
one site beside a Codex session: each listed with its format and parent, its page parsed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from readertools import database_from
from sitetools import external_references, soup
from test_opencode import database

from replay_site.pipeline import stages as site

DATA = Path(__file__).parent / "data"
OPENCODE, OPENCODE_CHILD = "ses_4a1f0c2e3ffe1abcDEFghiJKL1", "ses_4a1f0b9d1ffeZ9yxWVUtsr0002"
DATABASE, DATABASE_CHILD = "ses_3c0a00000ffeCCCCCCCCCCCC01", "ses_3c09ffff0ffeDDDDDDDDDDDD02"
PI, PI_FORK = "0195f0a0-0000-7000-8000-000000000001", "0195f0a0-0000-7000-8000-000000000002"
COPILOT = "7c1e4f2a-5b3d-4e8f-9a01-2b3c4d5e6f70"
AIDER = "calc@2026-02-10 09:15:02"
GOOSE = "20260211_1"
KIMI = "4d3c2b1a-0f9e-4d8c-8b7a-6e5d4c3b2a10"
CURSOR = "c7d1a2b3-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("opencode-db")
    database(folder)
    goose = database_from(DATA / "goose" / "goose-1.x.sql", tmp_path_factory.mktemp("goose") / "sessions.db")
    cursor = database_from(DATA / "cursor" / "cursor-agent-2026.sql", tmp_path_factory.mktemp("cursor") / "c7d1" / "store.db")
    out = tmp_path_factory.mktemp("new-formats-site")
    sources = [DATA / "opencode" / "storage-2026", folder / "opencode.db", DATA / "pi" / "v3-2026",
               DATA / "copilot" / "session-state-2026", DATA / "aider", goose,
               DATA / "kimi" / "sessions-2026", cursor, DATA / "codex" / "simplified.jsonl"]
    site.build(sources, out, site.BuildOptions(incremental=False))
    index = json.loads((out / "sessions.json").read_text())
    return out, {entry["id"]: entry for entry in (index["sessions"] if isinstance(index, dict) else index)}


def test_every_session_is_listed_with_its_format_and_parent(built):
    _, entries = built
    formats = {key: entries[key]["format"] for key in (OPENCODE, OPENCODE_CHILD, DATABASE, DATABASE_CHILD, PI, PI_FORK, COPILOT, AIDER, GOOSE, KIMI, CURSOR)}
    assert formats == {OPENCODE: "opencode", OPENCODE_CHILD: "opencode", DATABASE: "opencode", DATABASE_CHILD: "opencode",
                       PI: "pi", PI_FORK: "pi", COPILOT: "copilot", AIDER: "aider", GOOSE: "goose", KIMI: "kimi", CURSOR: "cursor"}
    assert entries["simplified-demo"]["format"] == "codex"
    assert (entries[OPENCODE_CHILD]["parent"], entries[DATABASE_CHILD]["parent"], entries[PI_FORK]["parent"]) == (OPENCODE, DATABASE, PI)
    assert entries[f"{COPILOT}/tc4"]["parent"] == COPILOT and entries[f"{KIMI}/tool_Task:3"]["parent"] == KIMI


def test_pages_show_the_calls_and_diffs(built):
    out, entries = built
    page = soup(out / entries[OPENCODE]["page"])
    names = [tag.get_text() for tag in page.select(".tool-call .tool-name")]
    assert names == ["read", "edit", "bash", "task", "write", "glob", "bash"]
    assert page.find(string=lambda text: text and 'parser.add_argument("--verbose", action="store_true")' in text)
    task = next(call for call in page.select(".tool-call") if call.select_one(".tool-name").get_text() == "task")
    assert task.select_one(".child-link a")["href"].endswith(entries[OPENCODE_CHILD]["page"].rpartition("/")[2])
    for key in (OPENCODE, PI, COPILOT, AIDER, GOOSE, KIMI, CURSOR):
        assert external_references(soup(out / entries[key]["page"])) == []
