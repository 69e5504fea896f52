"""The Goose reader against tests/data/goose: figures counted by hand.

goose-1.x.sql is a hand-written sessions.db (schema version 5): session 20260211_1 (10
messages: a request, 4 assistant messages, 3 user messages of tool results alone, one whose
content_json is not JSON, one of an unknown role) and a subagent session. legacy-2025/ is a
session file of Goose before its database (a metadata line, then 4 messages).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from readertools import check_folders, database_from, read_found

from replay_site.discover import find_sources
from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.goose.reader import READER

DATA = Path(__file__).parent / "data" / "goose"


@pytest.fixture
def database(tmp_path):
    return database_from(DATA / "goose-1.x.sql", tmp_path / "sessions" / "sessions.db")


def read(root: Path):
    return read_found(root, "goose")[1]


def test_registered_with_its_folder_and_variables(monkeypatch):
    assert registry()["goose"] is READER
    check_folders(monkeypatch, "goose", [Path.home() / ".local" / "share" / "goose" / "sessions"],
                  "GOOSE_PATH_ROOT", "/srv/goose", [Path("/srv/goose/data/sessions")])


def test_database_sessions(database):
    main, subagent = read(database.parent)
    assert (main.id, main.title, main.cwd) == ("20260211_1", "Add a health check endpoint", "/home/dev/api")
    # Steps: request, 4 assistant messages, the unknown role, the session's tokens.
    assert len(main.steps) == 7
    # Calls: view, str_replace, shell (its result an error).
    assert (main.tool_calls, main.failed_tool_calls, main.error_count) == (3, 1, 1)
    assert main.steps[2].tool_calls[0].changes[0].line_counts == (5, 0)
    assert main.steps[1].thinking == "Look at app.py."
    # The running totals, once: accumulated input 30000 and output 1200 (not the last turn's 9500/300).
    assert main.usage == Usage(input=30000, output=1200)
    assert [problem.message for problem in main.problems] == [
        "unknown Goose content kind 'hologram'", "its content_json is not a JSON list, skipped",
        "unknown Goose message role 'narrator'"]
    assert main.records["unknown"] == {"content/hologram": 1, "message/narrator": 1}
    assert main.records["shown"]["message/user (tool results)"] == 3
    assert subagent.facts[0].value == "sub_agent" and subagent.title == "List the routes in app.py"
    assert subagent.usage == Usage(input=4000, output=150)


def test_legacy_file():
    (session,) = read(DATA / "legacy-2025")
    assert (session.title, session.cwd, len(session.steps), session.tool_calls) == ("Rename a function", "/home/dev/old", 4, 1)
    assert session.usage == Usage(input=2300, output=200)


def test_databases_are_told_apart_by_content(database, tmp_path):
    from replay_site.readers.opencode.reader import READER as OPENCODE
    renamed = tmp_path / "copy.db"
    renamed.write_bytes(database.read_bytes())
    (source,) = find_sources(renamed, list(registry().values()), [])
    assert source.format == "goose"
    assert find_sources(renamed, [OPENCODE], []) == []
