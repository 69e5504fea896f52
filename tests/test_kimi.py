"""The Kimi CLI reader against tests/data/kimi: figures counted by hand.

sessions-2026/<md5>/<id>/wire.jsonl (protocol 1.3, 35 lines: the metadata line, 33 records and
a truncated line, 10): two turns, four model calls in the first (one StatusUpdate repeated), a
coder subagent run by the Task call (its events wrapped in SubagentEvent), a message kind no
protocol has (line 32); context.jsonl and subagents/agent-1/wire.jsonl are read with it.
sessions-2025/…/context.jsonl: a session of which only the context is left.
"""
from __future__ import annotations

from pathlib import Path

from readertools import check_folders, read_found

from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.kimi.reader import READER

DATA = Path(__file__).parent / "data" / "kimi"
SESSION = "4d3c2b1a-0f9e-4d8c-8b7a-6e5d4c3b2a10"


def read(root: Path):
    source, (session,) = read_found(root, "kimi")
    return source, session


def test_registered_with_its_folder_and_variable(monkeypatch):
    assert registry()["kimi"] is READER
    check_folders(monkeypatch, "kimi", [Path.home() / ".kimi" / "sessions"], "KIMI_SHARE_DIR", "/tmp/kimi",
                  [Path("/tmp/kimi/sessions")])


def test_wire_session_figures():
    source, session = read(DATA / "sessions-2026")
    assert sorted(path.name for path in source.related) == ["context.jsonl", "wire.jsonl"]  # the subagent's own wire
    assert session.id == SESSION and session.title == "Add a --dry-run flag to deploy.sh"
    # Steps: 2 turns' inputs, 4 model calls + the interrupted one, the unknown kind, the interruption.
    assert len(session.steps) == 9 and session.outcome == "interrupted"
    # ReadFile, StrReplaceFile, Shell (exit code 2), Task.
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (4, 1, 1)
    # Tokens of chatcmpl-1..4 (chatcmpl-2's StatusUpdate twice, counted once):
    # uncached input 3000+200+150+120, output 80+120+90+40, cache reads 0+3000+3200+3500.
    assert session.usage == Usage(input=3470, output=330, cache_read=9700)
    read_file = session.steps[1].tool_calls[0]
    assert read_file.arguments == {"path": "deploy.sh"}  # ToolCallPart completed it
    (edit,) = session.steps[2].tool_calls[0].changes
    assert edit.path == "deploy.sh" and edit.line_counts == (1, 1)
    shell, task = session.steps[3].tool_calls
    assert (shell.is_error, shell.exit_code, shell.code) == (True, 2, "sh -n deploy.sh")
    (child,) = session.children
    assert task.child_session_id == child.id and child.parent_id == SESSION and child.title == "Check the docs"
    assert child.usage == Usage(input=900, output=30) and len(child.steps) == 2


def test_every_line_accounted_for():
    _, session = read(DATA / "sessions-2026")
    records = session.records
    lines = sum(sum(counts.values()) for counts in records.values()) - 2  # less the two files read with it
    assert lines == 34
    assert records["unknown"] == {"Teleport": 1}
    assert records["not_shown"]["ApprovalRequest"] == 1 and records["not_shown"]["TurnEnd"] == 1
    assert [(p.kind, p.line) for p in session.problems] == [("bad_line", 10), ("unknown_event", 32)]


def test_context_only_session():
    _, session = read(DATA / "sessions-2025")
    assert (len(session.steps), session.tool_calls, session.title) == (3, 1, "What is in this folder?")
    assert session.steps[1].tool_calls[0].output == "deploy.sh\nREADME.md"
    assert session.records["not_shown"] == {"_system_prompt": 1, "_checkpoint": 1, "_usage": 1}
