"""The GitHub Copilot CLI reader against tests/data/copilot: figures counted by hand.

session-state-2026/<id>/events.jsonl (1.0.70, 30 lines): two runs of the CLI on one session
(a `session.resume` between them), each ending with `session.shutdown`; an explore subagent
whose events name its task call (`parentToolCallId`: tc4); a truncated line (26) and an event
kind no schema has (28). flat-2026-01/<id>.jsonl (0.0.380): the older file per session,
without per-message tokens or a shutdown.
"""
from __future__ import annotations

import json
from pathlib import Path

from readertools import check_folders, read_found

from replay_site.discover import find_sources
from replay_site.model import Usage
from replay_site.readers import registry
from replay_site.readers.copilot.reader import READER

DATA = Path(__file__).parent / "data" / "copilot"
MAIN = "7c1e4f2a-5b3d-4e8f-9a01-2b3c4d5e6f70"


def read(root: Path):
    _, (session,) = read_found(root, "copilot")
    return session


def test_registered_with_its_folder_and_variable(monkeypatch):
    assert registry()["copilot"] is READER
    check_folders(monkeypatch, "copilot", [Path.home() / ".copilot" / "session-state"],
                  "COPILOT_HOME", "/tmp/cp", [Path("/tmp/cp/session-state")])


def test_session_figures():
    session = read(DATA / "session-state-2026")
    assert session.id == MAIN and session.title == "Make the header sticky"
    assert (session.cwd, session.git_branch, session.agent_version) == ("/home/dev/web", "main", "1.0.70")
    # 19 steps: info, user, 4 calls' messages, the subagent's start and end, the answer, the
    # first shutdown (a step per model and its own), resume, user, answer, the unknown event,
    # abort, the second shutdown (one model and its own).
    assert len(session.steps) == 19
    # view, edit, bash (exit 1), task; the subagent's grep is its own.
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (4, 1, 1)
    assert session.outcome == "interrupted"
    # Output: the main agent's messages, 45+80+30+50+25 and 15; the shutdowns' output is all in
    # messages (230 of sonnet = 45+80+30+50+25, 20 of haiku = the subagent's, 15).
    # Input without cache: sonnet 52000-40000-8000 and 9000-8000, haiku 6000.
    assert session.usage == Usage(input=4000 + 1000 + 6000, output=245, cache_read=40000 + 8000, cache_write_5m=8000)
    (child,) = session.children
    assert child.usage == Usage(output=20) and child.parent_id == MAIN and child.tool_calls == 1
    # Session and subagent together: exactly the two shutdowns' totals.
    together = session.usage + child.usage
    assert (together.output, together.input + together.cache_read + together.cache_write) == (230 + 20 + 15, 52000 + 6000 + 9000)


def test_calls_diffs_and_subagent_link():
    session = read(DATA / "session-state-2026")
    steps = session.steps
    (edit,) = steps[3].tool_calls
    assert edit.changes[0].path == "/home/dev/web/style.css" and edit.changes[0].line_counts == (1, 1)
    (bash,) = steps[4].tool_calls
    assert (bash.is_error, bash.exit_code, bash.code) == (True, 1, "npm test")
    (task,) = steps[5].tool_calls
    (child,) = session.children
    assert task.child_session_id == child.id and child.title == "Check mobile layout"
    assert steps[1].details[0].label == "As sent to the model"


def test_every_line_accounted_for():
    session = read(DATA / "session-state-2026")
    records = session.records
    assert sum(sum(counts.values()) for counts in records.values()) == 29  # 30 lines, one truncated
    assert records["unknown"] == {"session.teleported": 1}
    assert records["not_shown"] == {"session.start": 1, "assistant.turn_start": 1, "tool.execution_start": 4, "assistant.turn_end": 1}
    assert [(p.kind, p.line) for p in session.problems] == [("bad_line", 26), ("unknown_event", 28)]


def test_older_flat_file():
    session = read(DATA / "flat-2026-01")
    assert (len(session.steps), session.tool_calls) == (3, 1) and not session.usage
    (change,) = session.steps[1].tool_calls[0].changes
    assert (change.path, change.kind, change.line_counts) == ("/home/dev/app/.gitignore", "add", (2, 0))


def test_not_taken_by_other_readers():
    for path in DATA.rglob("*.jsonl"):
        (source,) = find_sources(path, list(registry().values()), [])
        assert source.format == "copilot"


def test_subagent_named_by_agent_id_is_linked_to_its_task_call(tmp_path):
    # Newer CLIs mark a subagent's events with `agentId` only; its subagent.started names the call.
    def event(number, kind, data, **extra):
        return json.dumps({"type": kind, "data": data, "id": f"e{number}", "timestamp": f"2026-05-01T10:00:0{number}.000Z",
                           "parentId": f"e{number - 1}" if number > 1 else None, **extra})
    lines = [
        event(1, "session.start", {"sessionId": "s-agent", "copilotVersion": "1.0.90", "startTime": "2026-05-01T10:00:01.000Z"}),
        event(2, "user.message", {"content": "Review the diff"}),
        event(3, "assistant.message", {"messageId": "m1", "content": "", "toolRequests": [
            {"toolCallId": "call-7", "name": "task", "arguments": {"description": "Review", "prompt": "Review it"}}]}),
        event(4, "subagent.started", {"toolCallId": "call-7", "agentName": "reviewer", "agentDisplayName": "Reviewer",
                                      "agentDescription": "Reviews"}, agentId="agent-42"),
        event(5, "assistant.message", {"messageId": "m2", "content": "Looks fine."}, agentId="agent-42"),
        event(6, "tool.execution_complete", {"toolCallId": "call-7", "success": True, "result": {"content": "Looks fine."}}),
    ]
    (tmp_path / "events.jsonl").write_text("\n".join(lines) + "\n")
    session = read(tmp_path)
    (child,) = session.children
    assert session.steps[1].tool_calls[0].child_session_id == child.id == "s-agent/call-7"
    assert child.title == "Review" and child.steps[0].text == "Looks fine."
