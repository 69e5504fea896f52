"""Codex CLI 2026 records, from the hand-written fixture tests/data/codex/agents-2026 (cli 0.148.0).

Parent rollout (23 lines): 1 meta P; 2-3 turn T1 (a UUIDv7 minted 10:00:01); 4 prompt; 5 spawn_agent
call_spawn; 6 its output {"agent_id": C}; 7 sub_agent_activity; 8 token_count (1000 in, 200 cached,
50 out); 9 security_risk_score; 10 inter_agent_communication from /root/lint_check; 11 its metadata;
12 collab_tool_call "wait" naming C and no call; 13 developer <token_budget> message; 14
token_budget_reminder; 15 realtime transcript_segment; 16 answer; 17 turn_aborted budget_limited;
18-23 turn T2: prompt "continue", answer, token_count (600 in, 0 cached, 30 out), task_complete.
Child rollout C (14 lines, born 10:00:03): 1 its meta (forked_from_id P, thread_source subagent,
thread_spawn); 2-6 the parent's history replayed (P's meta, T1's task_started and turn_context, the
prompt, the spawn_agent call); 7-8 its own turn T3 (minted 10:00:04); 9 prompt "Lint src/ with
ruff"; 10-11 exec_command and its output; 12 answer; 13 token_count (500 in, 100 cached, 20 out); 14 task_complete.
"""
from __future__ import annotations

import json
import shutil

from replay_site.discover import find_sources
from replay_site.model import Usage
from replay_site.readers import SessionSource
from replay_site.readers.codex.reader import READER

DAY = "codex/agents-2026/sessions/2026/09/01"
P = "01a05c69-4d00-7000-8000-00000000a001"
C = "01a05c69-58b8-7000-8000-00000000c001"
CHILD_FILE = f"rollout-2026-09-01T10-00-03-{C}.jsonl"


def read_family(root):
    [source] = find_sources(root, [READER], [])
    [parent] = READER.read(source)
    return parent


def test_2026_records_are_known_and_read_as_their_producer_means(data):
    parent = read_family(data / DAY)
    assert not [p for p in parent.problems if p.kind == "unknown_event"]
    assert not [s for s in parent.steps if (s.title or "").startswith("Unknown Codex")]
    titles = [(s.kind, s.title) for s in parent.steps if s.kind in ("context", "event")]
    assert titles == [
        ("context", "Message from /root/lint_check to /root"),  # line 10; its metadata (11) and the risk score (9) are not shown
        ("event", "Agent call wait (completed)"),  # line 12
        ("context", "developer: token budget"),  # line 13
        ("context", "Context budget"),  # line 14
        ("context", "Voice transcript (user)"),  # line 15
        ("event", "Turn aborted"),  # line 17
    ]
    message = next(s for s in parent.steps if s.title == "Message from /root/lint_check to /root")
    assert message.text.endswith("Payload: lint clean")
    wait = next(s for s in parent.steps if s.title == "Agent call wait (completed)")
    assert wait.child_session_ids == [C]


def test_a_budget_abort_ends_its_turn(data):
    parent = read_family(data / DAY)
    kinds = [(s.kind, s.title or s.text) for s in parent.steps]
    aborted = kinds.index(("event", "Turn aborted"))
    # The answer before the abort (line 16) and the one after it (line 21) are two steps, with T2's prompt between.
    assert kinds[aborted - 1] == ("assistant", "Lint is clean.")
    assert kinds[aborted + 1:] == [("user", "continue"), ("assistant", "Continuing.")]
    assert parent.steps[aborted].error == "turn aborted: budget_limited"


def test_spawn_agent_call_links_to_the_forked_child_which_drops_the_copied_history(data):
    parent = read_family(data / DAY)
    [child] = parent.children
    spawn = next(c for s in parent.steps for c in s.tool_calls if c.name == "spawn_agent")
    assert spawn.child_session_id == C == child.id
    assert (child.parent_id, child.relation) == (P, "subagent")
    # Not titled by the parent's prompt (line 4 copied to line 5), not counting the copied spawn_agent call (line 6).
    assert child.title == "Lint src/ with ruff"
    assert [c.name for s in child.steps for c in s.tool_calls] == ["exec_command"]
    assert child.steps[0].title == f"Copied from thread {P}" and child.steps[0].collapsed
    assert "5 lines" in child.steps[0].text and "- Review the docs and lint the code" in child.steps[0].text
    # Tokens: child 500-100 uncached, 100 cached, 20 out; parent 800+600, 200 cached, 50+30.
    assert child.usage == Usage(400, 20, 100)
    assert parent.usage == Usage(1400, 80, 200)
    assert parent.usage_with_children == Usage(1800, 100, 300)


def test_forked_child_alone_still_drops_the_copied_history(data, tmp_path):
    """Without the parent's file, the boundary comes from the turn ids: T1 was minted before the
    child's own id (UUIDv7 times 10:00:01 < 10:00:03), T3 after."""
    shutil.copy(data / DAY / CHILD_FILE, tmp_path / CHILD_FILE)
    child = read_family(tmp_path)
    assert child.title == "Lint src/ with ruff"
    assert child.tool_calls == 1
    assert not [p for p in child.problems if "copied history is shown" in p.message]


def test_v2_child_without_a_prompt_is_titled_by_the_task_its_parent_sent(tmp_path):
    """MultiAgent V2: the task arrives as an inter_agent_communication after the replayed
    history; the boundary is that message, and its Payload line titles the thread."""
    def line(kind, payload):
        return json.dumps({"timestamp": "2026-09-01T10:00:05.000Z", "type": kind, "payload": payload})
    meta = {"id": "child-v4", "thread_source": "subagent", "parent_thread_id": "root-1", "timestamp": "2026-09-01T10:00:05Z"}
    path = tmp_path / "rollout-child.jsonl"
    path.write_text("\n".join([
        line("session_meta", meta),
        line("session_meta", {"id": "root-1", "timestamp": "2026-09-01T09:00:00Z"}),
        line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "the root's prompt"}]}),
        line("inter_agent_communication", {"author": "/root", "recipient": "/root/lint_check",
                                           "content": "Message Type: NEW_TASK\nTask name: lint_check\nSender: /root\nPayload: run ruff on src/",
                                           "trigger_turn": True}),
        line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}),
    ]) + "\n")
    [child] = READER.read(SessionSource("codex", path, tmp_path))
    assert child.title == "run ruff on src/"
    assert [s.title for s in child.steps][:2] == ["Copied from thread root-1", "Message from /root to /root/lint_check"]


def test_v2_spawn_call_links_its_child_by_task_name(tmp_path):
    """No event and no agent_id output: the spawn call's task_name is the last part of the child's agent_path."""
    def line(kind, payload):
        return json.dumps({"timestamp": "2026-09-01T10:00:05.000Z", "type": kind, "payload": payload})
    (tmp_path / "root.jsonl").write_text("\n".join([
        line("session_meta", {"id": "root-1", "timestamp": "2026-09-01T09:00:00Z"}),
        line("response_item", {"type": "function_call", "name": "spawn_agent", "call_id": "c1",
                               "arguments": json.dumps({"task_name": "lint_check", "message": "run ruff"})}),
        line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "spawned /root/lint_check"}),
    ]) + "\n")
    spawn = {"thread_spawn": {"parent_thread_id": "root-1", "depth": 1, "agent_path": "/root/lint_check"}}
    (tmp_path / "child.jsonl").write_text(line("session_meta", {"id": "child-1", "source": {"subagent": spawn}}) + "\n"
                                          + line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run ruff"}]}) + "\n")
    parent = read_family(tmp_path)
    [call] = [c for s in parent.steps for c in s.tool_calls]
    assert call.child_session_id == "child-1" == parent.children[0].id


def test_budget_records_under_their_third_party_names_are_folded_notices(tmp_path):
    def line(kind, payload):
        return json.dumps({"timestamp": "2026-09-01T10:00:05.000Z", "type": kind, "payload": payload})
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join([
        line("session_meta", {"id": "t-1", "timestamp": "2026-09-01T10:00:00Z"}),
        line("event_msg", {"type": "compaction_reminder", "remaining_tokens": 1500}),
        line("response_item", {"type": "token_budget_compaction_reminder", "content": "Compact soon."}),
        line("event_msg", {"type": "token_budget_abort", "turn_id": "x"}),
    ]) + "\n")
    [session] = READER.read(SessionSource("codex", path, tmp_path))
    assert [(s.title, s.text or s.error) for s in session.steps] == [
        ("Context budget", "1,500 tokens left in this context window"), ("Context budget", "Compact soon."),
        ("Turn aborted", "turn aborted: token budget exhausted")]
    assert not [p for p in session.problems if p.kind == "unknown_event"]
