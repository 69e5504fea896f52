"""The Hermes Agent reader against tests/data/hermes: figures counted by hand from the SQL.

hermes-v2026.3-state.sql is a state.db of March 2026 (no session_model_usage; messages
without active / compacted): CLI session S (7 transcript rows and a session_meta row) and the
subagent C it delegated to (4 rows). hermes-v2026.8-state.sql is of schema 30: session T,
compacted (3 archived rows, then the summary) and continued in U, with a rewound reply, an
image behind the "\\x01json:" sentinel, an error reply, a role no Hermes writes and a message
of a session not in the database. Hermes keeps token sums per session (and, later, per model
and task), never per response. Its JSON shapes: snapshot-v2026.2/ holds a
`sessions/session_<id>.json` snapshot (5 messages, no figures); export-v2026.8/ a
`hermes sessions export` file (a session and its subagent, one a line, and a torn line).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from readertools import check_folders, claimed_by_content, database_from, every_session_numbered, mangle_database, read_found
from sitetools import subagent_site, tool_names
from test_atif import exported, read_all, same_session

from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.files import read_head
from replay_site.readers.hermes.reader import READER

DATA = Path(__file__).parent / "data" / "hermes"
MARCH, AUGUST = "hermes-v2026.3-state", "hermes-v2026.8-state"
S, C = "20260318_101500_a1b2c3", "20260318_101620_d4e5f6"
T, U = "20260812_090000_0f0f0f", "20260812_093000_1a1a1a"


def database(folder: Path, name: str = MARCH) -> Path:
    return database_from(DATA / f"{name}.sql", folder / ".hermes" / "state.db")


def read(root: Path):
    return read_found(root, "hermes")[1][0]


def test_registered_with_its_folder_and_variables(monkeypatch):
    assert registry()["hermes"] is READER
    home = Path.home()
    check_folders(monkeypatch, "hermes", [home / ".hermes"], "HERMES_HOME", "/srv/hermes", [Path("/srv/hermes")])
    monkeypatch.delenv("HERMES_HOME")
    monkeypatch.setenv("HERMES_DATA_DIR_SUFFIX", "-dev")
    assert READER.default_dirs() == [home / ".hermes-dev"]


def test_march_session_calls_failures_and_subagent(tmp_path):
    database(tmp_path)
    session = read(tmp_path)
    assert (session.id, session.title, session.cwd, session.git_branch) == (S, "Fix the flaky retry test", "/home/dev/api", "fix-retry")
    # user, 3 assistant rows (tool rows are results), the session's token sums
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant", "assistant", "event"]
    # Calls: terminal (exit_code 1 in its JSON), patch (a diff), delegate_task.
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (3, 1, 1)
    (terminal,) = session.steps[1].tool_calls
    assert (terminal.code, terminal.exit_code, terminal.is_error, terminal.output) == \
        ("pytest tests/test_retry.py -q", 1, True, "F\n1 failed in 0.21s")
    patch, delegate = session.steps[2].tool_calls
    assert patch.changes[0].path == "/home/dev/api/retry.py" and patch.changes[0].line_counts == (1, 1)
    # one delegate_task call, one subagent: linked
    assert delegate.child_session_id == C and session.steps[2].child_session_ids == [C]
    assert session.steps[1].thinking == "Run the test first." and session.steps[1].model == "anthropic/claude-sonnet-4.5"
    (child,) = session.children
    assert (child.id, child.parent_id, child.relation, child.tool_calls) == (C, S, "subagent", 1)


def test_token_sums_once_and_the_logged_cost(tmp_path):
    database(tmp_path)
    session = read(tmp_path)
    # the sessions row's sums, on one step: input (already uncached) 3200, output 540,
    # cache read 28000, cache write 4100; the provider's cost 0.0391 (actual_cost_usd)
    assert session.usage == Usage(input=3200, output=540, cache_read=28000, cache_write_5m=4100)
    assert session.cost.usd == pytest.approx(0.0391) and session.cost.priced_steps == 1
    assert session.steps[-1].title == "Tokens of 3 model call(s) (Hermes keeps only their sums)"
    (child,) = session.children
    # the subagent's own sums; its cost is Hermes's estimate only, so ours is made later
    assert child.usage == Usage(input=900, output=120) and child.steps[-1].cost is None
    assert session.usage_with_children == Usage(input=4100, output=660, cache_read=28000, cache_write_5m=4100)
    assert session.records["not_shown"] == {"session": 1, "message/session_meta": 1, "state_meta": 1, "schema_version": 1}
    assert session.records["shown"] == {"message/user": 1, "message/assistant": 3, "message/tool": 3, "session totals": 1}
    assert session.problems == []


def test_august_compaction_rewind_images_and_warnings(tmp_path):
    database(tmp_path, AUGUST)
    session = read(tmp_path)
    assert session.id == T and session.title == "Port the CLI to click"  # no title: the first request
    assert [step.kind for step in session.steps] == ["user", "assistant", "user", "assistant", "context", "assistant",
                                                     "event", "assistant", "event", "event"]
    # rows 20-22 archived by the compaction, row 24 rewound: kept, folded
    assert [step.title for step in session.steps[:4]] == ["compacted", "compacted", None, "rewound"]
    assert session.steps[0].collapsed and session.steps[3].collapsed and not session.steps[2].collapsed
    assert session.steps[2].text == "Use this layout" and session.steps[2].images[0].media_type == "image/png"
    assert session.steps[4].title == "Summary of the conversation so far"
    (todo,) = session.steps[5].tool_calls
    assert [(item.text, item.status) for item in todo.todos] == [("Port main", "completed"), ("Port tests", "pending")]
    assert session.steps[7].error == "API error: overloaded" and (session.tool_calls, session.error_count) == (2, 1)
    assert sorted(problem.message for problem in session.problems) == [
        "1 message(s) of session '20260801_000000_gone00', which is not in the database, skipped",
        "unknown Hermes message role 'oracle'"]
    assert session.records["unknown"] == {"message/oracle": 1}


def test_august_sums_by_model_and_the_continuation(tmp_path):
    database(tmp_path, AUGUST)
    session = read(tmp_path)
    main, compression = session.steps[-2:]
    # session_model_usage: gpt-5.1 4600/650, cache read 12000, reasoning 200, cost 0.021 logged;
    # the compression model's 400/50, no cost logged (its 0)
    assert (main.model, main.usage, main.cost.usd) == ("openai/gpt-5.1", Usage(input=4600, output=650, cache_read=12000, reasoning=200), 0.021)
    assert (compression.model, compression.usage, compression.cost) == ("google/gemini-2.5-flash", Usage(input=400, output=50), None)
    assert session.usage == Usage(input=5000, output=700, cache_read=12000, reasoning=200)  # the sessions row's sums too
    (continued,) = session.children
    assert (continued.id, continued.relation, continued.title) == (U, "fork", "Port the CLI to click #2")
    assert continued.usage == Usage(input=1000, output=100)  # no usage rows: the sessions row


def test_a_snapshot_reads_as_its_session():
    _, (session,) = read_found(DATA / "snapshot-v2026.2", "hermes")
    assert (session.id, session.title, session.session_kind) == ("20260205_120000_abcdef", "Make a hello.txt saying hi", "cli")
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant"]
    # the snapshot writes the scratchpad as <think> tags before the reply
    assert (session.steps[1].text, session.steps[1].thinking) == ("Writing it.", "Use write_file.")
    (cat,) = session.steps[2].tool_calls
    assert (cat.code, cat.exit_code, cat.output, session.error_count) == ("cat /tmp/hello.txt", 0, "hi", 0)
    assert not session.usage and session.records["not_shown"] == {"snapshot": 1}


def test_a_snapshot_beside_its_database_is_not_read_twice(tmp_path):
    database(tmp_path)
    snapshot = next((DATA / "snapshot-v2026.2").rglob("session_*.json"))
    again = tmp_path / ".hermes" / "sessions" / f"session_{S}.json"
    again.parent.mkdir()
    again.write_text(snapshot.read_text().replace("20260205_120000_abcdef", S))
    (tmp_path / ".hermes" / "sessions" / snapshot.name).write_bytes(snapshot.read_bytes())
    source, sessions = read_found(tmp_path, "hermes")
    assert len(source.related) == 2 and [each.id for each in sessions] == [S, "20260205_120000_abcdef"]
    assert sessions[0].records["not_shown"]["snapshot of a session in state.db"] == 1


def test_an_export_reads_each_line_as_a_session():
    _, (session,) = read_found(DATA / "export-v2026.8", "hermes")
    assert (session.id, session.title) == ("20260820_140000_e1e1e1", "Publish the site")
    terminal, delegate = session.steps[1].tool_calls
    assert (terminal.exit_code, terminal.is_error) == (2, True) and delegate.child_session_id == "20260820_140200_e2e2e2"
    # the sums of its row: 2100 in, 300 out, 6000 cache read, the provider's 0.0122
    assert session.usage == Usage(input=2100, output=300, cache_read=6000) and session.cost.usd == pytest.approx(0.0122)
    (child,) = session.children
    assert (child.relation, child.usage) == ("subagent", Usage(input=700, output=40))
    assert [str(problem) for problem in session.problems] == ["hermes-sessions.jsonl:3: truncated line, skipped"]


def test_detected_by_name_and_content_only(tmp_path):
    # in a folder only a state.db is read; named on the command line, any name, by its schema
    source = claimed_by_content(database(tmp_path), tmp_path / "elsewhere" / "copy.db", "hermes")
    assert READER.read(source)[0].id == S
    data = Path(__file__).parent / "data"  # and Hermes takes no other agent's SQLite store
    others = [database_from(data / "opencode" / "opencode-1.2.sql", tmp_path / "o" / "state.db"),
              database_from(data / "goose" / "goose-1.x.sql", tmp_path / "g" / "state.db"),
              database_from(data / "crush" / "crush-0.83-2026-07.sql", tmp_path / "c" / "state.db", data / "crush" / "schema-2025.sql")]
    assert [READER.detect(other, read_head(other, named=True)) for other in others] == [None, None, None]


def test_round_trips_through_atif(tmp_path):
    for name in (MARCH, AUGUST):
        for session in read_all(database(tmp_path / name, name)):
            [back] = read_all(exported(tmp_path, session), "atif")
            same_session(session, back)


def test_mangled_database_never_makes_the_reader_raise(tmp_path):
    rng = random.Random("replay-site/hermes")
    for case in range(12):
        path = database(tmp_path / str(case), AUGUST if case % 2 else MARCH)
        mangle_database(path, rng, "SELECT id, content, tool_calls FROM messages",
                        lambda row: ("UPDATE messages SET content = ?, tool_calls = ?, timestamp = ? WHERE id = ?",
                                     ((row[1] or "")[: rng.randrange(len(row[1] or "x"))], (row[2] or "[")[: rng.randrange(4)],
                                      rng.choice([1e300, -5, 0]), row[0])),
                        "UPDATE sessions SET input_tokens = 'many', started_at = 'soon', model = 7" if case % 3 == 0 else "SELECT 1")
        every_session_numbered(tmp_path / str(case), READER)


def test_site_shows_the_calls_the_diff_and_the_subagent(tmp_path):
    database(tmp_path / "logs")
    entries, page = subagent_site([tmp_path / "logs"], tmp_path / "site", S, C, "delegate_task")
    assert (entries[S]["format"], entries[C]["format"]) == ("hermes", "hermes")
    assert tool_names(page) == ["terminal", "patch", "delegate_task"]
    assert page.find(string=lambda text: text and "sleep(backoff)" in text)
