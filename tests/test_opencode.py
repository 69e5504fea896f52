"""The OpenCode reader against tests/data/opencode: figures counted by hand from the records.

storage-2026/ is the JSON-files layout (OpenCode 1.1): session A (4 messages, 24 part files,
one of them cut short) and its task subagent B (2 messages without step parts, as older
messages are). opencode-1.2.sql is a hand-written database of the SQLite layout (1.2): session
C and its subagent D, plus a part that is not JSON, a part whose message is gone and a message
of an unknown role. Each assistant call's tokens and cost are its step-finish part's.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from readertools import database_from, read_found

from replay_site.discover import find_sources
from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.opencode.reader import READER

DATA = Path(__file__).parent / "data" / "opencode"
A, B = "ses_4a1f0c2e3ffe1abcDEFghiJKL1", "ses_4a1f0b9d1ffeZ9yxWVUtsr0002"
C, D = "ses_3c0a00000ffeCCCCCCCCCCCC01", "ses_3c09ffff0ffeDDDDDDDDDDDD02"


def database(folder: Path) -> Path:
    return database_from(DATA / "opencode-1.2.sql", folder / "opencode.db")


def read(root: Path):
    source, (session,) = read_found(root, "opencode")
    return source, session


def test_registered_with_its_folder_and_variable(monkeypatch):
    assert registry()["opencode"] is READER
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("OPENCODE_DB", raising=False)
    assert READER.default_dirs() == [Path.home() / ".local" / "share" / "opencode"]
    monkeypatch.setenv("XDG_DATA_HOME", "/tmp/data")
    assert READER.default_dirs() == [Path("/tmp/data/opencode")]
    assert READER.env_vars == ("XDG_DATA_HOME", "OPENCODE_DB")
    monkeypatch.setenv("OPENCODE_DB", "/srv/oc/team.db")
    assert READER.default_dirs() == [Path("/tmp/data/opencode"), Path("/srv/oc")]


def test_storage_session_reads_its_messages_parts_and_subagent():
    source, session = read(DATA / "storage-2026")
    assert len(source.related) == 1 + 6 + 26  # B's info file, A's and B's 6 message files and 24 + 2 part files
    assert session.id == A and session.title == "Add a verbose flag" and session.cwd == "/home/dev/cli"
    assert session.agent_version == "1.1.21"
    # Steps: user, the 3 calls of message 2, user, the 2 calls of message 4 (the second cut).
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant", "assistant", "user", "assistant", "assistant"]
    # Calls: read, edit, bash (exit 2), task, write, glob (error), bash (running when stopped).
    assert session.tool_calls == 7 and session.failed_tool_calls == 2 and session.error_count == 2
    assert session.outcome == "interrupted"  # MessageAbortedError is how it ended, not an error
    # Tokens of the four step-finish parts (never message 2's own copy of its last call's):
    # input 1500+40+30+25, output 60+20 + 150 + 90 + 70+10 (reasoning added back),
    # cache read 0+3500+3700+3900, cache write 2000+100.
    assert session.usage == Usage(input=1595, output=400, cache_read=11100, cache_write_5m=2100, reasoning=30)
    # Costs logged on three calls; the third call's 0 is left for the estimate.
    assert session.cost.priced_steps == 3 and session.cost.usd == pytest.approx(0.0123 + 0.0033 + 0.0021)
    assert session.steps[3].cost is None and session.steps[3].usage.input == 30


def test_storage_calls_diffs_and_subagent_link():
    _, session = read(DATA / "storage-2026")
    steps = session.steps
    (edit,) = steps[2].tool_calls
    assert edit.changes[0].path == "/home/dev/cli/cli.py" and edit.changes[0].line_counts == (1, 0)
    bash, task = steps[3].tool_calls
    assert (bash.is_error, bash.exit_code, bash.code) == (True, 2, "python cli.py --verbos")
    assert task.child_session_id == B and task.duration_s == 1.5
    write, glob = steps[5].tool_calls
    assert write.changes[0].kind == "add" and write.changes[0].line_counts == (3, 0)
    assert glob.is_error and "ENOENT" in glob.output
    assert steps[6].tool_calls[0].missing_result
    assert steps[1].thinking == "Look at cli.py first."
    assert steps[0].details[0].label == "Added by OpenCode"  # the synthetic part, not the request
    (child,) = session.children
    assert (child.id, child.parent_id, child.relation) == (B, A, "subagent")
    assert len(child.steps) == 2 and child.usage == Usage(input=800, output=40) and child.cost.usd == pytest.approx(0.003)


def test_storage_problems_and_account():
    _, session = read(DATA / "storage-2026")
    assert sorted((p.kind, p.path.rsplit("/", 1)[-1]) for p in session.problems) == [
        ("bad_line", "prt_b0e1a0004009.json"), ("unknown_event", "msg_b0e1a0004ffeAAAA00000004.json")]
    records = session.records
    assert records["unknown"] == {"part/hologram": 1}
    assert records["not_shown"] == {"session": 1, "part/step-start": 5, "part/patch": 1}
    # 1 session + 4 messages + 23 readable parts (the cut one is the bad_line)
    assert sum(sum(counts.values()) for counts in records.values()) == 28
    assert "hologram" in session.steps[5].details[0].text


def test_database_sessions(tmp_path):
    database(tmp_path)
    source, session = read(tmp_path)
    assert source.path.name == "opencode.db"
    # Its title is OpenCode's placeholder, so the first request titles it.
    assert session.id == C and session.title == "Rename foo to bar in util.py" and session.agent_version == "1.2.4"
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant", "user", "event"]
    assert (session.tool_calls, session.failed_tool_calls) == (2, 0)
    # input 2000+100, output 300+120 + 20, cache read 1000+3300; costs 0.0071 + 0.0006.
    assert session.usage == Usage(input=2100, output=440, cache_read=4300, reasoning=120)
    assert session.cost.usd == pytest.approx(0.0077) and session.cost.priced_steps == 2
    assert session.steps[1].tool_calls[0].changes[0].line_counts == (1, 1)
    assert session.steps[2].tool_calls[0].child_session_id == D
    (child,) = session.children
    assert child.id == D and child.usage == Usage(input=600, output=30) and child.tool_calls == 1
    assert child.steps[1].cost is None  # logged as 0: estimated later
    messages = sorted(p.message for p in session.problems)
    assert messages == ["1 part(s) of message 'msg_c0000099', which is not in the database, skipped",
                        "part 'prt_c000000299': its data is not a JSON object, skipped",
                        "unknown OpenCode message role 'narrator'"]
    assert session.records["unknown"] == {"message/narrator": 1}


def test_database_detected_by_content_not_only_name(tmp_path):
    renamed = tmp_path / "copy.db"
    shutil.copy(database(tmp_path), renamed)
    (tmp_path / "opencode.db").unlink()
    assert find_sources(tmp_path, [READER], []) == []  # in a folder: only opencode*.db
    (source,) = find_sources(renamed, [READER], [])  # named on the command line: by its header
    assert len(READER.read(source)) == 1
    (tmp_path / "opencode.db").write_text("not a database")
    assert find_sources(tmp_path / "opencode.db", [READER], []) == []

