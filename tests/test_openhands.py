"""The OpenHands reader against tests/data/openhands: figures counted by hand from the files.

cli-1.11-2026-02/ is a conversation of the OpenHands CLI on software-agent-sdk 1.11 (events in
a line, no `parent_id`): 20 event files and base_state.json, with a task subagent in
subagents/. Its stats hold 6 responses of the agent (`resp-1` … `resp-6`, with 6 costs),
one of the condenser that no event names, and the subagent's two responses copied in under
`task:task_00000001` (the child's own, counted there, never here).
sdk-1.40-2026-08/ is the event tree of SDK 1.40: a branch taken back (the user went back to
event 2 and asked again), a call the user refused, a pause.
v0-0.62-2026-01/ is a conversation of the first event format (OpenHands 0.62's file store:
`sessions/<id>/events/<n>.json`, 13 events, and metadata.json); trajectory-0.62-2026-03/ an
exported trajectory (a JSON list of 4 such events). Their tokens: each response's `usage`
once, and what the last running totals (`llm_metrics`) count beyond them on one step.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from readertools import check_folders, read_found
from sitetools import external_references, soup, subagent_site, tool_names

from replay_site.discover import find_sources
from replay_site.model import Session, Step, ToolCall, Usage
from replay_site.readers import registry
from replay_site.readers.openhands.reader import READER, _link_tasks

DATA = Path(__file__).parent / "data" / "openhands"
CLI, SDK = DATA / "cli-1.11-2026-02", DATA / "sdk-1.40-2026-08"
V0, TRAJECTORY = DATA / "v0-0.62-2026-01", DATA / "trajectory-0.62-2026-03"
A, CHILD = "4f1c2a7e-9b3d-4e5f-8a6b-7c8d9e0f1a2b", "9a8b7c6d-5e4f-4321-8a7b-6c5d4e3f2a1b"
B = "c0ffee00-1234-4abc-8def-c0ffee00c0ff"


def read(root: Path):
    source, (session,) = read_found(root, "openhands")
    return source, session


def test_registered_with_its_folders_and_variables(monkeypatch):
    assert registry()["openhands"] is READER
    home = Path.home()
    store = [home / ".openhands" / "sessions", home / ".openhands" / "users"]  # V0's file store
    check_folders(monkeypatch, "openhands", [home / ".openhands" / "conversations", *store],
                  "OPENHANDS_PERSISTENCE_DIR", "/srv/oh", [Path("/srv/oh/conversations"), *store])
    monkeypatch.setenv("OPENHANDS_CONVERSATIONS_DIR", "/data/convs")
    monkeypatch.setenv("OH_CONVERSATIONS_PATH", "/srv/agent-server/conversations")
    monkeypatch.setenv("FILE_STORE_PATH", "/var/oh")
    assert READER.default_dirs() == [Path("/data/convs"), Path("/srv/agent-server/conversations"),
                                     Path("/var/oh/sessions"), Path("/var/oh/users")]


def test_cli_conversation_steps_calls_and_failures():
    source, session = read(CLI)
    # base_state.json is the main file; its 20 events, the child's state and its 4 events
    assert source.path.name == "base_state.json" and len(source.related) == 20 + 1 + 4
    assert session.id == A and session.title == "Add a --verbose flag to cli.py" and session.cwd == "/home/dev/shop"
    assert session.outcome == "completed"  # execution_status "finished"
    # system prompt, user, resp-1 … resp-5 (resp-2 and resp-4 with two calls each), the unknown
    # event, resp-6's reply, and the condenser's response no event names
    assert [step.kind for step in session.steps] == ["context", "user", "assistant", "assistant", "assistant",
                                                     "assistant", "assistant", "event", "assistant", "event"]
    # Calls: view, str_replace, terminal (exit 2), task, task_tracker, create (AgentErrorEvent), terminal.
    assert session.tool_calls == 7 and session.failed_tool_calls == 2 and session.error_count == 2
    edit, bash = session.steps[3].tool_calls
    assert edit.changes[0].path == "/home/dev/shop/cli.py" and edit.changes[0].line_counts == (1, 0)
    assert (bash.code, bash.exit_code, bash.is_error) == ("python cli.py --verbos", 2, True)
    plan, create = session.steps[5].tool_calls
    assert [(todo.text, todo.status) for todo in plan.todos] == [("Add the flag", "completed"), ("Run the tests", "in_progress")]
    assert create.is_error and "file_text" in create.output
    assert session.steps[2].thinking == "The user wants a flag." and session.steps[2].text == "Let me look at cli.py first."
    assert session.steps[1].details[0].label == "Added by OpenHands"
    assert session.steps[0].collapsed and "helpful AI assistant" in session.steps[0].details[0].text


def test_cli_tokens_once_per_response_and_logged_costs():
    _, session = read(CLI)
    # Each response's TokenUsage (prompt - cache read - cache write = input):
    # input 1000+1100+1200+1200+1250+1250 = 7000, and the condenser's 5000;
    # output 150+320+90+260+40+30 = 890, and 400; cache read 11000+11500+11800+12200+12550;
    # cache write 11000+500+300+400+350+200. The subagent's copy under task:… is not counted.
    assert session.usage == Usage(input=12000, output=1290, cache_read=59050, cache_write_5m=12750)
    # Six costs for six responses: paired; the condenser has none logged (estimated later).
    assert session.cost.priced_steps == 6 and session.cost.usd == pytest.approx(0.045 + 0.012 + 0.008 + 0.0095 + 0.006 + 0.0055)
    assert session.steps[-1].title == "Model call for condenser (cond-1)" and session.steps[-1].cost is None
    (child,) = session.children
    # child: 3000 + (3200 - 2900) input, 80 + 20 output, 2900 cache read; costs 0.0102 + 0.003
    assert (child.id, child.parent_id) == (CHILD, A)
    assert child.usage == Usage(input=3300, output=100, cache_read=2900) and child.cost.usd == pytest.approx(0.0132)
    assert session.usage_with_children == Usage(input=15300, output=1390, cache_read=61950, cache_write_5m=12750)


def test_cli_subagent_linked_by_its_prompt_and_the_account():
    _, session = read(CLI)
    (task,) = session.steps[4].tool_calls
    assert task.name == "task" and task.child_session_id == CHILD and session.steps[4].child_session_ids == [CHILD]
    assert task.output == "tests/test_cli.py covers it."
    (problem,) = session.problems
    assert problem.kind == "unknown_event" and "HologramEvent" in problem.message and problem.path.endswith("event-00017-a0000011-0000-4000-8000-000000000007.json")
    assert session.records["unknown"] == {"HologramEvent": 1}
    assert session.records["not_shown"] == {"base_state": 1, "ConversationStateUpdateEvent": 2}
    assert sum(session.records["shown"].values()) == 17  # 20 events - 2 state updates - the unknown one
    assert "a kind OpenHands never wrote" in session.steps[7].details[0].text


def test_event_tree_branch_taken_back_refusal_and_pause():
    source, session = read(SDK)
    assert session.id == B and len(source.related) == 9
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant", "user", "assistant", "event"]
    off = session.steps[2]  # "Done with sed." answered event 2 on a branch the user left
    assert off.collapsed and off.title == "not on the branch in use" and off.text == "Done with sed."
    assert not any(step.collapsed for step in session.steps if step is not off)
    (refused,) = session.steps[4].tool_calls
    assert refused.output == "Rejected by the user: not now" and not refused.is_error and not refused.missing_result
    assert session.steps[5].title == "Paused by the user" and session.outcome == "interrupted"
    assert session.steps[1].thinking == "A sed will do."
    # input 2000 + (2300-1920) + (2400-1920); output 100+20+200 (reasoning 64+128 inside it);
    # the taken-back response was billed, so it counts. Costs 0.0012 + 0.0003 + 0.0009.
    assert session.usage == Usage(input=2860, output=320, cache_read=3840, reasoning=192)
    assert session.cost.usd == pytest.approx(0.0024) and (session.tool_calls, session.error_count) == (2, 0)


def test_v0_conversation_calls_failures_and_tokens():
    source, session = read(V0)
    assert source.path.name == "metadata.json" and len(source.related) == 13
    assert (session.id, session.title) == ("a1b2c3d4e5f60718293a4b5c6d7e8f90", "Fix README typo")
    # system, user, 3 responses with a call, the reply, the unknown observation, finish, the rest of the totals
    assert [step.kind for step in session.steps] == ["context", "user", "assistant", "assistant", "assistant", "assistant",
                                                     "event", "assistant", "event"]
    # Calls: execute_bash, str_replace_editor (a diff), execute_bash (exit 1), finish (answered by nothing).
    assert (session.tool_calls, session.failed_tool_calls, session.error_count) == (4, 1, 1)
    edit = session.steps[3].tool_calls[0]
    assert edit.changes[0].path == "/workspace/README.md" and edit.changes[0].line_counts == (1, 1)
    assert session.steps[4].tool_calls[0].exit_code == 1 and not session.steps[7].tool_calls[0].missing_result
    # Each response's usage (prompt - cached - cache creation = input): 200, 300, 400, 100 in;
    # 80, 60, 30, 20 out. The last running totals (prompt 26900, completion 240, cache read 20700,
    # cache write 4900) count 300 in, 50 out and 5300 cache read more: the reply's, on one step.
    assert [step.usage.input for step in session.steps if step.usage] == [200, 300, 400, 100, 300]
    assert session.usage == Usage(input=1300, output=240, cache_read=20700, cache_write_5m=4900)
    (problem,) = session.problems
    assert problem.path.endswith("events/10.json") and "hologram" in problem.message
    assert session.records["not_shown"] == {"metadata": 1, "agent_state_changed": 2}


def test_an_exported_trajectory():
    _, session = read(TRAJECTORY)
    assert (session.id, session.title) == ("trajectory-count-lines", "How many lines in setup.py?")
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant", "event"]
    (wc,) = session.steps[1].tool_calls
    assert (wc.code, wc.exit_code, wc.output) == ("wc -l setup.py", 0, "42 setup.py")
    # 3000 in and 40 out for the call's response; the totals (6100 prompt with 2900 cached, 55 out) the rest
    assert session.usage == Usage(input=3200, output=55, cache_read=2900)


def test_detected_by_content_only(tmp_path):
    event = next((CLI / "conversations" / A.replace("-", "") / "events").glob("event-00001-*.json"))
    renamed = tmp_path / "copy.json"
    renamed.write_bytes(event.read_bytes())
    assert find_sources(tmp_path, [READER], []) == []  # in a folder: only event-… and base_state.json names
    (source,) = find_sources(renamed, [READER], [])  # named on the command line: by its content
    assert READER.read(source)[0].steps[0].text == "Add a --verbose flag to cli.py"
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "event-00000-0a0b0c0d-aaaa.json").write_text('{"kind": "ActionEvent", "type": "message"}')
    assert find_sources(tmp_path / "events", [READER], []) == []  # no source: not an OpenHands event


def test_site_pages_show_the_calls_the_diff_and_the_folded_branch(tmp_path):
    out = tmp_path / "site"
    entries, page = subagent_site([CLI, SDK], out, A, CHILD, "task")
    assert {key: entries[key]["format"] for key in (A, CHILD, B)} == {A: "openhands", CHILD: "openhands", B: "openhands"}
    assert tool_names(page) == ["file_editor", "file_editor", "terminal", "task", "task_tracker", "file_editor", "terminal"]
    assert page.find(string=lambda text: text and "parser.add_argument('--verbose', action='store_true')" in text)
    branch = soup(out / entries[B]["page"])
    assert branch.find(string=lambda text: text and "not on the branch in use" in text) and external_references(branch) == []


def test_a_delegate_call_is_linked_to_the_subagents_it_asked():
    # the delegate tool names its subagents by ids of its own: its tasks are their first requests
    call = ToolCall("delegate", id="c1", arguments={"command": "delegate", "tasks": {"lint": "Run the linter", "docs": "Fix the docs"}})
    parent = Session("p", "openhands", steps=[Step("assistant", tool_calls=[call])])
    parent.children = [Session(ident, "openhands", steps=[Step("user", text=text)])
                       for ident, text in (("s-docs", "Fix the docs"), ("s-lint", "Run the linter"), ("s-other", "Something else"))]
    _link_tasks(parent)
    assert (call.child_session_id, parent.steps[0].child_session_ids) == ("s-lint", ["s-lint", "s-docs"])
    assert [(fact.label, fact.value) for fact in parent.facts] == [("Subagents not named by a call", "s-other")]
