"""The Crush reader against tests/data/crush: figures counted by hand from the SQL.

Each database is schema-2025.sql, then the fixture's SQL. crush-0.33-2026-01.sql is a
project's `.crush/crush.db` of Crush 0.33 (before the read_files table): session S (6 messages: a request, 3 assistant responses, 2 messages of tool results)
and its agent-tool subagent C (`<message id>$$<call id>`, 4 messages). crush-0.83-2026-07.sql
has read_files, a bang-mode shell command, an image, a write's diff, a failed view and a
provider error, and the things the reader warns about. Crush keeps no tokens per response and
a running cost that its subagents' costs are added to.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from readertools import check_folders, claimed_by_content, database_from, every_session_numbered, mangle_database, read_found
from sitetools import subagent_site, tool_names
from test_atif import exported, read_all, same_session

from replay_site.readers import registry
from replay_site.readers.crush.reader import READER
from replay_site.readers.files import read_head

DATA = Path(__file__).parent / "data" / "crush"
S, C = "f3a9c1d2-7b4e-4c5a-9e8f-1a2b3c4d5e6f", "8d1c0b2a-0002-4000-8000-000000000002$$call_agent_1"
T = "0b7d2e4f-1c3a-4d5e-8f9a-0b1c2d3e4f5a"


def database(folder: Path, name: str = "crush-0.33-2026-01") -> Path:
    return database_from(DATA / f"{name}.sql", folder / "shop" / ".crush" / "crush.db", DATA / "schema-2025.sql")


def read(root: Path):
    return read_found(root, "crush")[1][0]


def test_registered_with_its_folders_and_variables(monkeypatch, tmp_path):
    assert registry()["crush"] is READER
    home = Path.home()
    check_folders(monkeypatch, "crush", [home / ".local" / "share" / "crush"], "XDG_DATA_HOME", "/x", [Path("/x/crush")])
    # Crush's projects.json names each project's data folder
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(tmp_path))
    (tmp_path / "projects.json").write_text(json.dumps({"projects": [
        {"path": "/home/dev/shop", "data_dir": "/home/dev/shop/.crush", "last_accessed": "2026-07-01T10:00:00Z"},
        {"path": "relative", "data_dir": "relative/.crush"}]}))
    assert READER.default_dirs() == [tmp_path, Path("/home/dev/shop/.crush")]
    (tmp_path / "projects.json").write_text("{broken")
    assert READER.default_dirs() == [tmp_path]


def test_session_steps_calls_failures_and_subagent(tmp_path):
    database(tmp_path)
    session = read(tmp_path)
    assert session.id == S and session.title == "Fix the failing date test"
    # user, 3 responses (tool messages are results, not steps), the session's cost
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant", "assistant", "event"]
    # Calls: agent, bash (its output ends "Exit code 1"), edit, todos, bash (canceled: no result).
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (5, 1, 1)
    agent, bash = session.steps[1].tool_calls
    assert agent.child_session_id == C and session.steps[1].child_session_ids == [C]
    assert (bash.code, bash.exit_code, bash.is_error) == ("go test ./...", 1, True)
    edit, todos = session.steps[2].tool_calls
    assert edit.changes[0].path == "/home/dev/dates/dates.go" and edit.changes[0].line_counts == (1, 1)
    assert [(todo.text, todo.status) for todo in todos.todos] == [("Fix layout", "completed"), ("Run tests", "in_progress")]
    assert session.steps[3].tool_calls[0].missing_result and session.outcome == "interrupted"  # finish reason canceled
    assert session.steps[1].thinking == "Find the test first." and session.steps[1].model == "claude-sonnet-4-5-20250929"
    (child,) = session.children
    assert (child.id, child.parent_id, child.tool_calls) == (C, S, 1)
    assert [step.kind for step in child.steps] == ["user", "assistant", "assistant", "event"]


def test_costs_once_and_no_invented_tokens(tmp_path):
    database(tmp_path)
    session = read(tmp_path)
    # S's running cost 0.0612 holds C's 0.011, added when C ended: S's own is 0.0502.
    assert session.steps[-1].cost.usd == pytest.approx(0.0502) and session.steps[-1].collapsed
    assert session.cost_with_children.usd == pytest.approx(0.0612)
    # The token columns are the last response's, overwritten each time: shown, never summed.
    assert not session.usage and not session.usage_with_children
    assert ("Tokens of the last response (Crush keeps no others)", "18,450 prompt, 210 completion") in \
        [(fact.label, fact.value) for fact in session.facts]


def test_account_of_every_row(tmp_path):
    database(tmp_path)
    session = read(tmp_path)
    assert session.problems == []
    assert session.records["not_shown"] == {"session": 1, "part/finish": 3, "files": 2}
    # messages 1 user, 3 assistant, 2 tool; parts: text 3, reasoning 1, tool_call 5, tool_result 4
    assert session.records["shown"] == {"message/user": 1, "message/assistant": 3, "message/tool": 2, "part/text": 3,
                                        "part/reasoning": 1, "part/tool_call": 5, "part/tool_result": 4}


def test_july_2026_shapes_and_warnings(tmp_path):
    database(tmp_path, "crush-0.83-2026-07")
    session = read(tmp_path)
    # "Untitled Session" is Crush's placeholder: the first request titles it
    assert session.id == T and session.title == "Write a README for this app"
    assert [step.kind for step in session.steps] == ["event", "user", "assistant", "assistant", "assistant", "event", "event"]
    (shell,) = session.steps[0].tool_calls
    assert (shell.name, shell.code, shell.exit_code, shell.is_error) == ("shell", "ls", 0, False)
    assert session.steps[1].images[0].media_type == "image/png"
    (write,) = session.steps[2].tool_calls
    assert write.changes[0].kind == "add" and write.changes[0].line_counts == (3, 0)
    assert session.steps[3].tool_calls[0].is_error and session.steps[4].error == "Provider error\n\nrate limited"
    # the failed view and the provider error
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (3, 1, 2)
    assert sorted(problem.message for problem in session.problems) == [
        "1 message(s) of session 'a-session-deleted-since', which is not in the database, skipped",
        "a message whose parts are not a JSON list, skipped",
        "unknown Crush message role 'narrator'",
        "unknown Crush part type 'hologram'"]
    assert session.records["unknown"] == {"part/hologram": 1, "message/narrator": 1, "message/assistant": 1}
    assert session.records["not_shown"] == {"session": 1, "part/finish": 2, "files": 1, "read_files": 1}
    assert "a part Crush never wrote" in session.steps[4].details[0].text


def test_detected_by_name_and_content_only(tmp_path):
    # in a folder only a crush.db is read; named on the command line, any name, by its schema
    source = claimed_by_content(database(tmp_path), tmp_path / "elsewhere" / "copy.db", "crush")
    assert READER.read(source)[0].id == S
    # and Crush takes no other agent's SQLite store
    others = [database_from(Path(__file__).parent / "data" / "opencode" / "opencode-1.2.sql", tmp_path / "o" / "crush.db"),
              database_from(Path(__file__).parent / "data" / "goose" / "goose-1.x.sql", tmp_path / "g" / "crush.db")]
    assert [READER.detect(other, read_head(other, named=True)) for other in others] == [None, None]


def test_round_trips_through_atif(tmp_path):
    for name in ("crush-0.33-2026-01", "crush-0.83-2026-07"):
        for session in read_all(database(tmp_path / name, name)):
            [back] = read_all(exported(tmp_path, session), "atif")
            same_session(session, back)


def test_mangled_database_never_makes_the_reader_raise(tmp_path):
    rng = random.Random("replay-site/crush")
    for case in range(12):
        path = database(tmp_path / str(case), "crush-0.83-2026-07" if case % 2 else "crush-0.33-2026-01")
        mangle_database(path, rng, "SELECT id, parts FROM messages",
                        lambda row: ("UPDATE messages SET parts = ? WHERE id = ?",
                                     (row[1][: rng.randrange(len(row[1]) or 1)].replace('"text"', '"x"', rng.randrange(2)), row[0])),
                        "UPDATE sessions SET cost = 'lots', created_at = 'later', title = 7, todos = '{'" if case % 3 == 0 else "SELECT 1")
        every_session_numbered(tmp_path / str(case), READER)


def test_site_shows_the_calls_the_diff_and_the_subagent(tmp_path):
    database(tmp_path / "logs")
    entries, page = subagent_site([tmp_path / "logs"], tmp_path / "site", S, C, "agent")
    assert (entries[S]["format"], entries[C]["format"]) == ("crush", "crush")
    assert tool_names(page) == ["agent", "bash", "edit", "todos", "bash"]
    assert page.find(string=lambda text: text and 'const layout = "2006-01-02"' in text)
