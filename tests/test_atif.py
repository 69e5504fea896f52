"""ATIF in and out: the reader (tests/data/atif, figures worked out by hand from the files),
the export of every format's fixtures, validated by the `atif` package's Pydantic models of
the published schema (an implementation independent of ours), and read back with the same
steps, calls and figures."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from atif import Trajectory
from typer.testing import CliRunner

from replay_site import atif_export, load
from replay_site.cli.app import app
from replay_site.discover import discover, pick_readers
from replay_site.model import Session, Usage
from replay_site.readers import registry

DATA = Path(__file__).parent / "data"
EXACT = load.ReadOptions(redact=False)


def read_all(root: Path, format_name: str = "auto") -> list[Session]:
    problems: list = []
    sessions = []
    for source in discover([root], pick_readers(format_name), problems):
        found, failed = load.read_source(source, EXACT)
        assert failed == []
        sessions.extend(found)
    return sessions


def by_id(sessions: list[Session]) -> dict[str, Session]:
    return {each.id: each for session in sessions for each in session.walk()}


def test_a_harbor_trial_reads_with_its_figures():
    [session] = read_all(DATA / "atif" / "harbor-v1.4")
    assert session.id == "b2c7e0d4-hello-task" and session.format == "atif"
    assert session.title == "Create a file called hello.txt with 'Hello, world!' as the content."  # the first user message
    assert [step.kind for step in session.steps] == ["context", "user", "assistant", "assistant", "assistant", "event"]
    assert session.steps[0].collapsed  # the system prompt
    assert session.tool_calls == 4
    # prompt_tokens counts every input token: uncached = prompt - cached - cache writes.
    # step 3: 1200 - 1000 - 150 = 50; step 4: 1400 - 1300 = 100; step 5: 1500 - 1400 = 100
    assert [step.usage for step in session.steps[2:5]] == [
        Usage(input=50, output=80, cache_read=1000, cache_write_5m=150),
        Usage(input=100, output=40, cache_read=1300),
        Usage(input=100, output=20, cache_read=1400),
    ]
    # the log's own costs: 0.0021 + 0.0015 + 0.0008
    assert session.cost.source == "log" and session.cost.usd == pytest.approx(0.0044)
    failed = session.steps[3].tool_calls[0]
    assert failed.is_error and failed.exit_code == 127 and failed.output == "bash: pytest: command not found\n"
    assert session.error_count == 1
    assert session.steps[4].tool_calls[0].missing_result  # mark_task_complete: no observation came
    assert not session.steps[2].tool_calls[0].missing_result  # an empty output is still a result
    # the step of an unknown source is shown as a raw stub, warned about and counted unknown
    assert session.steps[5].title == "step from 'robot'" and "a step from a source" in session.steps[5].details[0].text
    assert [p.kind for p in session.problems] == ["unknown_event"]
    assert session.records["unknown"] == {"step:robot": 1}
    assert session.records["shown"] == {"step:system": 1, "step:user": 1, "step:agent": 3}


def test_subagents_embedded_and_by_file_and_a_continued_trajectory():
    [root] = read_all(DATA / "atif" / "subagents-v1.7")
    assert root.id == "run-42"
    sessions = by_id([root])
    assert set(sessions) == {"run-42", "explore-1", "review-1"}
    delegate = root.steps[1]
    assert [(call.name, call.child_session_id) for call in delegate.tool_calls] == [("delegate", "explore-1"), ("delegate", "review-1")]
    assert delegate.child_session_ids == ["explore-1", "review-1"]
    assert all(child.parent_id == "run-42" and child.relation == "subagent" for child in root.children)
    # the image a path names is not beside the file: named in the text, never fetched
    assert root.steps[0].text == "Find why the login page is slow.\n[image: screens/login.png]"
    # main.cont-1.json continues the run: its steps follow a marker, in the same session
    assert [step.kind for step in root.steps] == ["user", "assistant", "context", "context", "assistant"]
    assert root.steps[2].title == "continued trajectory"
    assert root.steps[4].tool_calls[0].missing_result
    # root: (2000-500) + (600-100) = 2000 uncached, 300 + 40 = 340 out, reasoning 120 of them
    assert root.usage == Usage(input=2000, output=340, cache_read=600, reasoning=120)
    # explore-1: 900 + (1000-900); review-1: 700 in, 50 out, cost 0.0003 from its log
    assert sessions["explore-1"].usage == Usage(input=1000, output=80, cache_read=900)
    assert sessions["review-1"].usage == Usage(input=700, output=50)
    assert sessions["review-1"].error_count == 1  # the result's extra says status "error"
    assert root.usage_with_children == Usage(input=3700, output=470, cache_read=1500, reasoning=120)
    assert root.error_count + sum(child.error_count for child in root.children) == 1


def test_a_dataset_of_trajectories_reads_a_session_a_line():
    sessions = read_all(DATA / "atif" / "dataset-v1.8")
    assert [session.id for session in sessions] == ["ds-1", "ds-2"]
    problems = [str(problem) for problem in sessions[0].problems]
    assert problems == ["trajectories.jsonl:3: truncated line, skipped",
                        "trajectories.jsonl:4: not an ATIF trajectory (no ATIF schema_version and steps), skipped"]
    assert sessions[0].usage == Usage(input=100, output=10)
    assert sessions[0].cost.source == "estimate"  # no cost_usd: priced from the tokens and the step's model
    assert sessions[1].steps[0].text == "say hi\n[audio: hi.wav]"  # a v1.8 audio part, named
    assert sessions[1].steps[1].tool_calls[0].missing_result


def test_harbor_terminus_results_naming_no_call_answer_the_step():
    """terminus-2 (Harbor's own agent) writes one observation result per step, naming no
    call: the terminal after all of the step's commands."""
    [session] = read_all(DATA / "atif" / "terminus-v1.5")
    assert [step.kind for step in session.steps] == ["user", "assistant", "assistant", "assistant"]
    two, three, four = session.steps[1:]
    # two commands, one terminal screen after both: shown once, after them, answering both
    assert [(call.name, call.orphan, call.missing_result) for call in two.tool_calls] == [
        ("bash_command", False, False), ("bash_command", False, False), ("observation", True, False)]
    assert two.tool_calls[2].output.endswith("root@box:/# ") and "42" in two.tool_calls[2].output
    # a step with no call: its result (the harness's parse error) is shown, not a call
    assert [(call.name, call.orphan) for call in three.tool_calls] == [("observation", True)]
    # one call, one result: paired
    [done] = four.tool_calls
    assert done.name == "mark_task_complete" and done.output.startswith("Current terminal state:")
    assert session.tool_calls == 3  # 2 + 0 + 1: the observations are no calls
    # no cached_tokens: every prompt token is uncached input; 1000 + 1200 + 1400
    assert session.usage == Usage(input=3600, output=170)
    assert session.cost.source == "log" and session.cost.usd == pytest.approx(0.0035)  # agrees with final_metrics
    assert session.problems == []


def test_mini_swe_agent_cache_details_and_step_costs_that_disagree_with_the_total():
    """Harbor's mini-swe-agent converter keeps litellm's cache counts in
    metrics.extra.prompt_tokens_details, and writes step costs that do not add up to the
    trajectory's total (here 0.03 + 0.02 against 0.03)."""
    [session] = read_all(DATA / "atif" / "mini-swe-v1.2")
    three, four = session.steps[2:]
    # prompt 1000 = 400 cached + 100 written + 500 uncached; prompt 1500 = 1200 cached + 300
    assert three.usage == Usage(input=500, output=200, cache_read=400, cache_write_5m=100)
    assert four.usage == Usage(input=300, output=100, cache_read=1200)
    assert [call.output.startswith("<returncode>0</returncode>") for step in (three, four) for call in step.tool_calls] == [True, True]
    # the steps' costs are not what was billed: left out, priced from the tokens, the total shown
    assert three.cost is None or three.cost.source != "log"
    assert session.cost.source != "log"
    assert ("Cost in final_metrics", "$0.0300") in [(fact.label, fact.value) for fact in session.facts]
    [problem] = session.problems
    assert "add up to $0.0500" in problem.message and "says $0.0300" in problem.message


def test_only_atif_is_taken_for_atif(tmp_path):
    reader = registry()["atif"]
    from replay_site.readers.files import read_head

    (tmp_path / "not-atif.json").write_text(json.dumps({"schema_version": "1.4", "steps": []}))
    (tmp_path / "codex.json").write_text(json.dumps({"session": {"id": "x"}, "items": []}))
    (tmp_path / "yes.json").write_text(json.dumps({"schema_version": "ATIF-v1.5", "agent": {"name": "a", "version": "1"}, "steps": []}))
    answers = {path.name: reader.detect(path, read_head(path)) for path in sorted(tmp_path.iterdir())}
    assert answers["not-atif.json"] is None and answers["codex.json"] is None and answers["yes.json"] is not None


# --- export: every format's fixtures ----------------------------------------------------------

# Cursor's and Crush's stores are built from SQL by their own tests (test_crush and test_hermes
# round-trip their databases); claude-history holds no log, only Claude Code's prompt history
# (test_history_rescue builds its prompts-only pages)
FORMATS = sorted(path.name for path in DATA.iterdir() if path.is_dir() and path.name not in ("cursor", "crush", "claude-history"))


def exported(tmp_path: Path, session: Session) -> Path:
    out = tmp_path / f"{abs(hash(session.id))}.atif.json"
    out.write_bytes(atif_export.dumps(session))
    return out


@pytest.mark.parametrize("format_name", FORMATS)
def test_every_fixture_exports_to_atif_that_the_schema_accepts(tmp_path, format_name):
    sessions = read_all(DATA / format_name)
    assert sessions
    for session in sessions:
        document = json.loads(exported(tmp_path, session).read_bytes())
        Trajectory.model_validate(document)  # raises on any breach of the schema's rules
        assert document["schema_version"] == "ATIF-v1.7"
        assert len(document["steps"]) == len(session.steps)
        assert len(document.get("subagent_trajectories", [])) == len(session.children)


def same_session(before: Session, after: Session) -> None:
    """Read -> ATIF -> read gives the same steps, calls and figures."""
    assert after.id == before.id and after.title == before.title
    assert (after.parent_id, after.relation) == (before.parent_id, before.relation)
    assert len(after.steps) == len(before.steps)
    for one, two in zip(before.steps, after.steps):
        where = f"{before.id} step {one.number}"
        assert (two.kind, two.text, two.thinking, two.title, two.error, two.collapsed) == \
               (one.kind, one.text, one.thinking, one.title, one.error, one.collapsed), where
        assert (two.timestamp, two.model, two.usage) == (one.timestamp, one.model, one.usage), where
        assert (two.child_session_ids, two.tier) == (one.child_session_ids, one.tier), where
        assert (two.cost is None) == (one.cost is None), where
        if one.cost is not None:
            assert (two.cost.source, two.cost.usd) == (one.cost.source, pytest.approx(one.cost.usd)), where
        assert len(two.tool_calls) == len(one.tool_calls), where
        for a, b in zip(one.tool_calls, two.tool_calls):
            assert (b.name, b.id, b.arguments, b.output, b.is_error, b.exit_code) == (a.name, a.id, a.arguments, a.output, a.is_error, a.exit_code), where
            assert (b.missing_result, b.orphan, b.child_session_id) == (a.missing_result, a.orphan, a.child_session_id), where
            assert [(c.path, c.kind, c.diff) for c in b.changes] == [(c.path, c.kind, c.diff) for c in a.changes], where
    assert after.error_count == before.error_count
    assert after.usage_with_children == before.usage_with_children
    assert after.cost_with_children.usd == pytest.approx(before.cost_with_children.usd)
    assert [child.id for child in after.children] == [child.id for child in before.children]
    for one, two in zip(before.children, after.children):
        assert two.relation == one.relation
        same_session(one, two)


@pytest.mark.parametrize("format_name", FORMATS)
def test_every_fixture_round_trips_through_atif(tmp_path, format_name):
    for session in read_all(DATA / format_name):
        [back] = read_all(exported(tmp_path, session), "atif")
        same_session(session, back)


def test_export_command_writes_atif_by_the_suffix(tmp_path):
    log = DATA / "atif" / "harbor-v1.4" / "agent" / "trajectory.json"
    out = tmp_path / "trial.atif.json"
    result = CliRunner().invoke(app, ["export", str(log), "-o", str(out)])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    trajectory = Trajectory.model_validate(document)
    assert [step.source for step in trajectory.steps] == ["system", "user", "agent", "agent", "agent", "system"]
    assert document["final_metrics"]["total_cost_usd"] == pytest.approx(0.0044)
    # ATIF counts cached and cache-written tokens in prompt_tokens: 50 + 1000 + 150
    assert trajectory.steps[2].metrics.prompt_tokens == 1200
    refused = CliRunner().invoke(app, ["export", str(log), "-o", str(tmp_path / "part.atif.json"), "--steps", "1-2"])
    assert refused.exit_code != 0 and "whole session" in refused.output


def test_trajectory_files_naming_each_other_are_read_once_each(tmp_path):
    def trajectory(ident: str, delegate_to: str | None) -> dict:
        steps = [{"step_id": 1, "source": "user", "message": f"task of {ident}"}]
        if delegate_to:
            steps.append({"step_id": 2, "source": "agent", "message": "",
                          "tool_calls": [{"tool_call_id": "d", "function_name": "delegate", "arguments": {}}],
                          "observation": {"results": [{"source_call_id": "d", "subagent_trajectory_ref": [{"trajectory_path": delegate_to}]}]}})
        return {"schema_version": "ATIF-v1.7", "trajectory_id": ident, "agent": {"name": "a", "version": "1"}, "steps": steps}

    # main -> b -> c -> b: a loop a hostile or broken set of files can make
    for name, ident, target in (("main.json", "main", "b.json"), ("b.json", "b", "c.json"), ("c.json", "c", "b.json")):
        (tmp_path / name).write_text(json.dumps(trajectory(ident, target)))
    [main] = read_all(tmp_path)
    assert [each.id for each in main.walk()] == ["main", "b", "c"]
    loop, = main.walk()[2].steps[1].tool_calls
    assert loop.child_session_id is None and "not found" in loop.output  # b is being read: not read again inside c


@pytest.mark.parametrize("format_name", ["claude", "codex"])
def test_subagent_links_and_per_step_metrics_survive_the_round_trip(tmp_path, format_name):
    """The fixtures with subagents: each child embedded (v1.7 subagent_trajectories), each
    delegating call's result naming it, each step's tokens in its own metrics (prompt_tokens:
    every input token), and read back the same links and figures, child by child."""
    families = [session for session in read_all(DATA / format_name) if session.children]
    assert families, f"the {format_name} fixtures hold sessions with subagents"

    def links(session: Session) -> list[tuple[int, str, str]]:
        return [(step.number, call.name, call.child_session_id) for step in session.steps for call in step.tool_calls if call.child_session_id]

    linked = 0
    for session in families:
        document = json.loads(exported(tmp_path, session).read_bytes())
        embedded = [child["trajectory_id"] for child in document["subagent_trajectories"]]
        assert embedded == [child.id for child in session.children]
        refs = [ref["trajectory_id"] for step in document["steps"] for result in step.get("observation", {}).get("results", [])
                for ref in result.get("subagent_trajectory_ref") or []]
        assert refs == [child for _, _, child in links(session)] and set(refs) <= set(embedded)
        for step, raw in zip(session.steps, document["steps"]):
            if step.usage:
                metrics = raw["metrics"]
                assert (metrics["prompt_tokens"], metrics["completion_tokens"], metrics["cached_tokens"]) == \
                       (step.usage.input + step.usage.cache_read + step.usage.cache_write, step.usage.output, step.usage.cache_read)
        [back] = read_all(exported(tmp_path, session), "atif")
        assert [links(each) for each in back.walk()] == [links(each) for each in session.walk()]
        assert [[step.usage for step in each.steps] for each in back.walk()] == [[step.usage for step in each.steps] for each in session.walk()]
        linked += len(refs)
    assert linked  # some child is delegated by a call, not only listed
