"""Claude Code 2.1.x records, from the hand-written fixture tests/data/claude/-home-dev-v21 (version 2.1.247).

The fixture, line by line (main file, 31 lines; `uN` is the line whose uuid ends in 01NN):
  1 user "Fix the flaky retry test"            2 ai-title "Flaky test"
  3 assistant m1: text + Workflow call (usage 100/20)   4 its result: runId wf_r1, transcriptDir …/workflows/wf_r1
  5 assistant m2: Agent call toolu_ag (110/15)  6 its result (no agentId: agent-n1.meta.json names toolu_ag)
  7 assistant m3 text (105/10)                 8 user "Now run the tests"
  9 assistant m4 "Tests pass now." (120/30), parent line 8
 10 system api_error retry 1, ALSO parent line 8, written after the reply; line 11 hangs off it
 11 user "Open a PR"                           12-13 assistant m5 split over two lines: TaskCreate, SendMessage (130/40 each line)
 14-15 their results                          16-17 TaskUpdate #1 completed, its result
 18-19 TaskList, its text result (2 tasks)      20-21 Artifact, result with toolUseResult.url
 22-23 assistant m9 split: Monitor, ScheduleWakeup  24 Monitor's result (ScheduleWakeup's never comes)
 25 user <teammate-message teammate_id="alice">  26 assistant m10 (140/25)
 27-28 pr-link #142 twice (same prUrl)  29 ai-title "Fix flaky retry test"  30 agent-name  31 agent-color
Side files: subagents/agent-n1 (Agent call toolu_nested inside it), agent-n2 (meta toolUseId toolu_nested, depth 2),
subagents/workflows/wf_r1/agent-w1, agent-w2 and journal.jsonl.
"""
from __future__ import annotations

import json

from replay_site.discover import find_sources
from replay_site.model import PullRequest, Usage
from replay_site.readers import SessionSource
from replay_site.readers.claude.reader import READER
from replay_site.readers.claude.steps import ABANDONED_TITLE

S = "c2100000-0000-4000-8000-000000000021"


def row(session_id, uuid, parent, kind, content, **extra):
    """One hand-written transcript line (main chain unless `isSidechain=True` is passed)."""
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(id=f"m-{uuid}", model="claude-opus-4-5-20251101", usage={"input_tokens": 10, "output_tokens": 5})
    return json.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session_id, "isSidechain": False,
                       "timestamp": "2026-09-01T10:00:00Z", "message": message, **extra})


def read_fixture(data):
    problems: list = []
    sources = find_sources(data / "claude/-home-dev-v21", [READER], problems)
    assert len(sources) == 1, sources  # the agents (workflow, nested) are not sessions of their own
    assert problems == []  # journal.jsonl is claimed with its run's agents, not "not recognised"
    [session] = READER.read(sources[0])
    return session


def calls_by_name(session):
    return {call.name: (call, step) for step in session.steps for call in step.tool_calls}


def test_ai_title_last_one_wins_and_pr_link_and_agent_name_are_read(data):
    session = read_fixture(data)
    assert session.title == "Fix flaky retry test"  # line 29, not line 2's "Flaky test"
    # Lines 27-28 name the same prUrl: one pull request.
    assert session.pull_requests == [PullRequest("https://github.com/dev/v21/pull/142", 142, "dev/v21")]
    assert ("Agent name", "retry work") in [(f.label, f.value) for f in session.facts]
    assert not [p for p in session.problems if "agent-color" in p.message or "ai-title" in p.message]


def test_custom_title_beats_ai_title(tmp_path):
    path = tmp_path / "s.jsonl"
    rows = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2026-09-01T10:00:00Z",
         "message": {"role": "user", "content": "first prompt"}},
        {"type": "custom-title", "customTitle": "my name", "sessionId": "s"},
        {"type": "ai-title", "aiTitle": "model name", "sessionId": "s"},  # later, but the user's own title wins
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    [session] = READER.read(SessionSource("claude", path, tmp_path))
    assert session.title == "my name"


def test_api_error_retry_is_no_rewound_branch(data):
    session = read_fixture(data)
    assert not [step for step in session.steps if (step.title or "").startswith(ABANDONED_TITLE)]
    # 15 steps: lines 1,3,5,7,8,9 (6), the retry 10, 11, m5, m6, m7, m8, m9, teammate 25, m10 (15).
    assert len(session.steps) == 15
    assert [s.text for s in session.steps if s.kind == "assistant" and s.text][2] == "Tests pass now."
    assert [s.title for s in session.steps if s.kind == "event"] == ["API error, retry 1"]
    # Each response once: 100+110+105+120+130+140 input, 20+15+10+30+40+25 output.
    assert session.usage == Usage(705, 140)


def test_workflow_agents_and_nested_agents_are_linked_children(data):
    session = read_fixture(data)
    w1, w2, n1 = f"{S}-agent-w1", f"{S}-agent-w2", f"{S}-agent-n1"
    # Children in the order they started: w1 10:00:10, w2 10:00:12, n1 10:00:30.
    assert [child.id for child in session.children] == [w1, w2, n1]
    workflow, step = calls_by_name(session)["Workflow"]
    assert workflow.child_session_id == w1 and step.child_session_ids == [w1, w2]
    assert calls_by_name(session)["Agent"][0].child_session_id == n1
    [n2] = session.children[2].children  # nested: spawned by the Agent call inside agent-n1
    assert n2.id == f"{S}-agent-n2" and n2.parent_id == n1
    assert calls_by_name(session.children[2])["Agent"][0].child_session_id == n2.id
    assert [c.title for c in session.walk()[1:]] == ["Verify fix 1", "Verify fix 2", "Review the retry code", "Check imports"]
    assert {c.project for c in session.walk()} == {"-home-dev-v21"}
    # With children: 705 + 40 + 41 + (50 + 60) + 30 input.
    assert session.usage_with_children.input == 705 + 40 + 41 + 110 + 30


def test_teammate_tools_monitor_wakeup_and_artifact_read_as_what_they_are(data):
    session = read_fixture(data)
    calls = calls_by_name(session)
    assert [(t.text, t.status) for t in calls["TaskCreate"][0].todos] == [("Open PR", "pending")]
    assert [(t.text, t.status) for t in calls["TaskUpdate"][0].todos] == [("#1", "completed")]
    # Line 19's text: "#1 [completed] Open PR (alice)\n#2 [pending] Write notes".
    assert [(t.text, t.status) for t in calls["TaskList"][0].todos] == [("#1 Open PR (alice)", "completed"), ("#2 Write notes", "pending")]
    assert calls["SendMessage"][0].code == "→ alice: PR coming"
    assert (calls["Monitor"][0].code, calls["Monitor"][0].language) == ("gh run watch", "bash")
    assert calls["ScheduleWakeup"][0].code == "wake up in 300s: check CI\nthen: /loop check CI"
    assert calls["ScheduleWakeup"][0].missing_result and not calls["ScheduleWakeup"][0].is_error
    assert calls["Artifact"][0].url == "https://claude.ai/a/xyz"
    teammate = next(s for s in session.steps if s.title and s.title.startswith("Message from"))
    assert (teammate.kind, teammate.title, teammate.text) == ("context", "Message from alice", "**alice**: All green on CI")


def test_inline_sidechain_with_a_line_whose_parent_is_missing_stays_one_child(tmp_path):
    """A sidechain line whose parent is not in the file (a left-out progress line) joins the run
    written last instead of becoming a second child titled by its uuid."""
    path = tmp_path / "s1.jsonl"
    path.write_text("\n".join([
        row("s1", "u1", None, "user", "Count the files."),
        row("s1", "a1", "u1", "assistant", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {"description": "count", "prompt": "Count files in src."}}]),
        row("s1", "s1", None, "user", "Count files in src.", isSidechain=True),
        row("s1", "s2", "s1", "assistant", [{"type": "text", "text": "Listing."}], isSidechain=True),
        row("s1", "s3", "progress-not-written", "assistant", [{"type": "text", "text": "12 files."}], isSidechain=True),
        row("s1", "u2", "a1", "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "12 files."}]),
    ]) + "\n")
    [session] = READER.read(SessionSource("claude", path, tmp_path))
    [child] = session.children
    assert [s.text for s in child.steps] == ["Count files in src.", "Listing.", "12 files."]
    assert child.title == "count"  # the Task's description
    assert session.steps[1].tool_calls[0].child_session_id == child.id


def test_pull_request_is_a_link_in_the_header_and_in_the_summary(data, tmp_path):
    from replay_site.figures.summary import summarize
    from replay_site.pages.views import header
    session = read_fixture(data)
    summary = summarize(session, "Claude Code", "page.html", "family")
    assert summary.to_json()["pull_requests"] == [{"number": 142, "url": "https://github.com/dev/v21/pull/142", "repository": "dev/v21"}]
    view = header(session, summary, standalone=False)
    assert [(pr.title, pr.href) for pr in view.pull_requests] == [("#142 dev/v21", "https://github.com/dev/v21/pull/142")]
    session.pull_requests = [PullRequest("javascript:alert(1)", 1, None)]
    assert [(pr.title, pr.href) for pr in header(session, summary, standalone=False).pull_requests] == [("#1 (javascript:alert(1))", "")]


def test_background_agent_notification_is_context_and_the_agent_a_linked_child(tmp_path):
    """A run_in_background Agent call: its result says async_launched with the agentId; the agent's
    file is in subagents/; its completion arrives later as a <task-notification> user line."""
    session_id = "s-bg"
    main = tmp_path / f"{session_id}.jsonl"
    main.write_text("\n".join([
        row(session_id, "u1", None, "user", "Audit the repo"),
        row(session_id, "a1", "u1", "assistant", [{"type": "tool_use", "id": "toolu_bg", "name": "Agent",
                                       "input": {"description": "Audit", "prompt": "Audit src/", "run_in_background": True}}]),
        row(session_id, "u2", "a1", "user", [{"type": "tool_result", "tool_use_id": "toolu_bg", "content": "Async agent launched"}],
            toolUseResult={"status": "async_launched", "isAsync": True, "agentId": "bg1", "description": "Audit"}),
        row(session_id, "u3", "u2", "user", "<task-notification><task-id>bg1</task-id><tool-use-id>toolu_bg</tool-use-id><status>completed</status>"
            "<summary>Agent \"Audit\" completed</summary><result>2 issues</result></task-notification>"),
    ]) + "\n")
    agents = tmp_path / session_id / "subagents"
    agents.mkdir(parents=True)
    (agents / "agent-bg1.jsonl").write_text(json.dumps({"type": "user", "uuid": "b1", "parentUuid": None, "sessionId": session_id,
        "isSidechain": True, "agentId": "bg1", "timestamp": "2026-09-01T10:00:01Z", "message": {"role": "user", "content": "Audit src/"}}) + "\n")
    [source] = find_sources(tmp_path, [READER], [])
    [session] = READER.read(source)
    [child] = session.children
    call = session.steps[1].tool_calls[0]
    assert call.child_session_id == child.id == f"{session_id}-agent-bg1"
    notice = session.steps[-1]
    assert (notice.kind, notice.title, notice.collapsed) == ("context", "Background task completed", True)
    assert session.title == "Audit the repo"  # the notification is no prompt
