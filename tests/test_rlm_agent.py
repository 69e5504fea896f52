"""rlm-code 0.1.12+ native agent journals and observability step files, from hand-written fixtures
(shapes from rlm_code/agent/events.py, runtime.py, kernel.py, capabilities/base.py, coordination.py
and rlm_code/rlm/observability.py).

tests/data/rlm/agent/.rlm_code/agent/sessions/agent_0c1d2e3f/events.jsonl (27 events):
  1 session.started (root, claude-sonnet-4-5)  2 message.user "Tidy setup.cfg and list the TODOs"
  3 model.requested  4 model.response call_a1 (1,000 in / 100 out)  5 python.started
  6-8 effect repo.read: requested, approval auto_approved, completed
  9-12 effect rlm.spawn: requested, approved, agent.spawned agent_child01 "List the TODOs in src/", completed
  13-16 the child's own events (agent_id agent_child01): started, its task, a response (400 / 60), completed
  17 python.finished call_a1 (850 ms, variable `child`)  18 kernel.checkpointed  19 usage.updated
  20 model.requested  21 model.response call_a2 (1,200 / 40)
  22-25 effect shell.run: requested, approval asked (high risk), denied, effect.failed
  26 python.finished call_a2, status error  27 model.response, the answer (1,500 / 50)  28 session.completed (3,700 / 190)
approvals.jsonl beside it: one audit line.
claude-sonnet-4-5 at $3 / $15 per MTok: root 4,500 + 4,200 + 5,250 = 13,950 µ$; the child 1,200 + 900 = 2,100 µ$.

tests/data/rlm/observed/.rlm_code/rlm/observability: steps/run_20261203_090000_000030.jsonl (3 steps, rewards
0.5, -0.25, 1.0; step 2 success false) and runs.jsonl (its summary: task "Sum the numbers in data.csv", completed).
"""
from __future__ import annotations

import pytest

from replay_site.costs import price_session
from replay_site.discover import find_sources
from replay_site.readers import registry
from replay_site.readers.files import read_head
from replay_site.readers.rlm.reader import READER, sniff_head

SESSION = "agent_0c1d2e3f"


def read(root):
    problems: list = []
    sources = find_sources(root, list(registry().values()), problems)
    assert problems == []  # approvals.jsonl and runs.jsonl are claimed: no "no reader recognises this file"
    assert {source.format for source in sources} == {"rlm"}
    found = []
    for source in sources:
        for session in READER.read(source):
            price_session(session)
            found.append(session)
    return sources, found


@pytest.fixture
def agent(data):
    sources, [root] = read(data / "rlm/agent")
    [source] = sources
    assert [path.name for path in source.related] == ["approvals.jsonl"]
    return root


def calls(session):
    """The session's calls by name, the first of each name."""
    found: dict = {}
    for step in session.steps:
        for call in step.tool_calls:
            found.setdefault(call.name, call)
    return found


def test_the_journal_is_told_from_gptme_events_by_its_content(data):
    journal = data / f"rlm/agent/.rlm_code/agent/sessions/{SESSION}/events.jsonl"
    gptme_events = data / "gptme/undo-edit/events.jsonl"
    assert sniff_head(journal, read_head(journal)) == "agent"
    assert sniff_head(gptme_events, read_head(gptme_events)) is None
    assert registry()["gptme"].detect(journal, read_head(journal)) is None


def test_every_event_type_is_read_and_the_bookkeeping_left_out_by_design(agent):
    assert agent.records["unknown"] == {} and not agent.problems
    assert agent.records["not_shown"] == {"model.requested": 2, "python.started": 1, "usage.updated": 1, "approval audit": 1}
    assert sum(agent.records["shown"].values()) == 24  # 28 events, 4 of them not shown
    assert agent.records["shown"]["model.response"] == 4 and agent.records["shown"]["agent.spawned"] == 1


def test_the_root_session_its_python_cells_and_their_effects(agent):
    assert agent.id == SESSION and agent.title == "Tidy setup.cfg and list the TODOs" and agent.status == "completed"
    assert agent.cwd == "/home/dev/shop" and agent.models == ["anthropic/claude-sonnet-4-5"]
    found = calls(agent)
    cell = found["python"]  # the first: call_a1
    assert cell.code.startswith("print(repo.read('setup.cfg')") and cell.output == "[metadata]\nname = shop\n"
    assert cell.duration_s == pytest.approx(0.85) and not cell.is_error and not cell.missing_result
    assert "auto_approved" in found["repo.read"].output and not found["repo.read"].is_error
    denied = found["shell.run"]
    assert denied.is_error and "approval asked (risk high): deletes files" in denied.output and "denied" in denied.output
    # 2 python cells + 3 effects; the second cell and its denied effect failed
    assert (agent.tool_calls, agent.failed_tool_calls) == (5, 2)
    first_response = agent.steps[1]
    assert [(v.name, v.value) for v in first_response.variables] == [("child", "{'agent_id': 'agent_child01'}")]
    assert first_response.checkpoint == "Python state saved: child"


def test_a_spawned_agent_is_a_child_session_linked_from_its_spawn(agent):
    [child] = agent.children
    assert child.id == f"{SESSION}/agent_child01" and child.parent_id == SESSION and child.relation == "subagent"
    assert child.title == "List the TODOs in src/" and child.status == "completed"
    assert calls(agent)["rlm.spawn"].child_session_id == child.id
    assert [step.text for step in child.steps if step.kind == "assistant"] == ["Two TODOs: cart.py:12 and pay.py:40."]


def test_tokens_are_each_response_once_and_match_the_runtime_total(agent):
    assert agent.usage.total == 3890 and not agent.usage.partial  # = the session's own 3,700 + 190
    assert "Usage incomplete" not in {fact.label for fact in agent.facts}
    assert agent.cost.usd == pytest.approx(13950e-6)
    assert agent.cost_with_children.usd == pytest.approx(16050e-6)


def test_observability_steps_alone_are_the_run_titled_by_its_summary(data):
    _, sessions = read(data / "rlm/observed")
    by_id = {session.id: session for session in sessions}
    run = by_id["run_20261203_090000_000030"]
    assert run.title == "Sum the numbers in data.csv" and run.status == "completed"
    assert [step.reward for step in run.steps] == [0.5, -0.25, 1.0]
    assert [step.cumulative_reward for step in run.steps] == [0.5, 0.25, 1.25]
    assert [bool(step.error) for step in run.steps] == [False, True, False]
    assert run.records["shown"] == {"observed step": 3}
    summaries = by_id["observability/runs.jsonl"]
    assert [step.title for step in summaries.steps] == ["Run run_20261203_090000_000030: completed, 3 step(s), reward 1.25"]


def test_the_agent_and_observability_folders_are_defaults(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    dirs = READER.default_dirs()
    assert tmp_path / ".rlm_code" / "agent" / "sessions" in dirs
    assert tmp_path / ".rlm_code" / "rlm" / "observability" in dirs


def test_observed_steps_of_a_run_whose_run_file_is_found_join_it(data, tmp_path):
    """tests/data/rlm/runs' run file with a steps file of the same run_id (2 lines) beside it, as the sink writes it."""
    here = tmp_path / ".rlm_code" / "rlm"
    (here / "runs").mkdir(parents=True)
    (here / "observability" / "steps").mkdir(parents=True)
    run = "run_20261201_100000_000010"
    (here / "runs" / f"{run}.jsonl").write_bytes((data / "rlm/runs" / f"{run}.jsonl").read_bytes())
    (here / "observability" / "steps" / f"{run}.jsonl").write_text(
        '{"timestamp": "2026-12-01T10:00:01+00:00", "run_id": "%s", "step": 1, "action": "run_python", "reward": 0.1, '
        '"cumulative_reward": 0.1, "success": true}\n'
        '{"timestamp": "2026-12-01T10:00:02+00:00", "run_id": "%s", "step": 2, "action": "final", "reward": 1.0, '
        '"cumulative_reward": 1.1, "success": true}\n' % (run, run))
    sources, sessions = read(tmp_path)
    [source] = sources
    assert [path.name for path in source.related] == [f"{run}.jsonl"]
    [session] = [each for each in sessions if each.id == run]
    assert session.records["not_shown"] == {"observed step": 2}  # the run file's steps are shown, not these again
    assert "observed steps" in {fact.label: fact.value for fact in session.facts}["Also recorded in"]
