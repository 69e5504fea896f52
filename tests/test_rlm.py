"""rlm-code reader: the four shapes against the real corpus, the example data, and bad input.

Every figure below was worked out by hand from the raw lines (the comment next to each says
which lines and how); none was copied from the reader's own output.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_site.discover import find_sources
from replay_site.model import Session
from replay_site.readers import SessionSource, registry
from replay_site.readers.rlm.reader import READER, sniff

RUN = "run_20261122_155857_978574"
CHILD_RUN = "run_20261122_155858_003148"
FINAL = "api is the noisiest service (3 ERROR lines; worker 2, db 1). Most frequent error: 'upstream timeout' (3x)."


def read_one(path: Path) -> Session:
    sources = list(find_sources(path, [READER], []))
    assert len(sources) == 1, sources
    sessions = READER.read(sources[0])
    assert len(sessions) == 1
    return sessions[0]


def fact(session: Session, label: str) -> str | None:
    return next((f.value for f in session.facts if f.label == label), None)


def test_registered() -> None:
    assert registry()["rlm"] is READER


def test_sniff_tells_the_four_shapes_apart(corpus: Path) -> None:
    rlm = corpus / "rlm"
    assert sniff(rlm / "generated/sessions" / f"{RUN}.session.jsonl") == "native"
    assert sniff(rlm / "generated/trajectories/traj_longest_word.jsonl") == "trajectory"
    assert sniff(rlm / "docs-trajectory-example/run_001.jsonl") == "trajectory"
    assert sniff(rlm / "generated/runs" / f"{RUN}.jsonl") == "run"
    assert sniff(next((rlm / "generated/store/snapshots").glob("*.json"))) == "snapshot"


def test_never_claims_other_formats(corpus: Path) -> None:
    # Codex and Claude lines also carry `type`; Glue has meta.json; none of them is rlm-code.
    for other in ("codex", "claude", "gptme", "glue"):
        if (corpus / other).is_dir():
            assert list(find_sources(corpus / other, [READER], [])) == [], other


def test_find_groups_a_run_with_its_delegated_child(corpus: Path) -> None:
    runs = corpus / "rlm/generated/runs"
    sources = list(find_sources(runs, [READER], []))
    # Two run files; the child's first line has depth 1 and parent_run_id = the parent's run_id.
    assert [(s.path.name, [p.name for p in s.related]) for s in sources] == [(f"{RUN}.jsonl", [f"{CHILD_RUN}.jsonl"])]
    # Named on its own, the parent still brings its child; the child alone is read alone.
    assert [p.name for p in next(iter(find_sources(runs / f"{RUN}.jsonl", [READER], []))).related] == [f"{CHILD_RUN}.jsonl"]
    assert next(iter(find_sources(runs / f"{CHILD_RUN}.jsonl", [READER], []))).related == ()
    # Whole corpus folder: the run group (with the session events and the snapshot that record
    # the same run_id, so one run is one session) and two trajectories = 3 sources.
    sources = list(find_sources(corpus / "rlm", [READER], []))
    assert len(sources) == 3
    [run] = [s for s in sources if s.path.name == f"{RUN}.jsonl"]
    assert sorted(p.name for p in run.related) == sorted([
        f"{CHILD_RUN}.jsonl", f"{RUN}.session.jsonl", f"sess-{RUN}_c0145c6944cf.json"])


def test_one_run_is_one_session(corpus: Path) -> None:
    # Before: the run file, its session events and its snapshot were three top-level rows with
    # the same title and steps, two of them with an empty 0-step child. Now the run file wins
    # (its delegated run is a child with steps: 711 own + 273 child = 984, the recorder's total)
    # and the other two are named as its sources.
    [run] = [s for s in find_sources(corpus / "rlm", [READER], []) if s.path.name == f"{RUN}.jsonl"]
    [session] = READER.read(run)
    assert (len(session.steps), session.usage.total, session.usage_with_children.total) == (4, 711, 984)
    [child] = session.children
    assert child.id == CHILD_RUN and len(child.steps) == 2
    also = next(f.value for f in session.facts if f.label == "Also recorded in")
    assert also == (f"generated/sessions/{RUN}.session.jsonl (session events), "
                    f"generated/store/snapshots/sess-{RUN}_c0145c6944cf.json (snapshot)")


def test_native_session_jsonl(corpus: Path) -> None:
    session = read_one(corpus / "rlm/generated/sessions" / f"{RUN}.session.jsonl")
    assert session.problems == []
    # step_end lines 10, 19, 29, 36: action_type of steps 1..4.
    assert [s.title for s in session.steps] == ["run_python", "delegate", "run_python", "final"]
    # step_result rewards (lines 6, 16, 25, 34) and their cumulative_reward.
    assert [s.reward for s in session.steps] == pytest.approx([0.8, 0.7, -0.3, 1.0])
    assert [s.cumulative_reward for s in session.steps] == pytest.approx([0.8, 1.5, 1.2, 2.2])
    # Only step 3 failed (line 25 success false, KeyError in stderr; line 26 repeats it as an
    # `error` event): one failed run_python call, counted once, no separate step error.
    assert session.error_count == 1 and session.failed_tool_calls == 1
    assert session.first_error_step == 3
    step3 = session.steps[2]
    assert step3.error is None and step3.tool_calls[0].is_error
    assert "KeyError: 'FATAL'" in step3.tool_calls[0].output
    assert step3.tool_calls[0].output.startswith("0 2 2 2 1 2 2 2 0 ")  # stdout before the traceback
    # run_python (1, 3) and delegate (2) are tool calls; `final` is not: 3 calls.
    assert session.tool_calls == 3
    assert step3.tool_calls[0].language == "python" and "levels['FATAL']" in step3.tool_calls[0].code
    # durations: step_result duration_ms 22.3, 0.0, 13.6, 0.0.
    assert [s.duration_s for s in session.steps] == pytest.approx([0.0223, 0.0, 0.0136, 0.0])
    # tokens from llm_response lines 4, 13, 23, 32: in 86/296/133/165, out 66/132/66/40.
    assert [(s.usage.input, s.usage.output) for s in session.steps] == [(86, 66), (296, 132), (133, 66), (165, 40)]
    assert session.usage.total == 984  # = session_end total_tokens (line 38)
    # Header facts: session_start (line 1), final_detected (37), session_end (38); 3 of 4 steps ok.
    assert fact(session, "Task") == "Audit service.log: count ERROR lines per service and name the noisiest one"
    assert fact(session, "Environment") == "generic"
    assert fact(session, "Completed") == "yes"
    assert fact(session, "Final answer") == FINAL
    assert fact(session, "Total reward") == "2.2"
    assert fact(session, "Success rate") == "75% (3 of 4 steps)"
    assert fact(session, "Total tokens") == "984"
    # checkpoint event line 20: "after-delegation" at step 2.
    assert [s.checkpoint for s in session.steps] == [None, "after-delegation", None, None]
    # memory_update lines 9, 18, 28, 35: the notes grow by one per step.
    assert [len(s.memory_notes) for s in session.steps] == [1, 2, 3, 4]
    assert session.steps[2].memory_notes[-1] == "step 3: run_python -> failed"
    # variable_update: step1_stdout + error_counts at step 1 (lines 7, 8), step3_stdout at step 3 (27).
    changed = [[v.name for v in s.variables if v.changed] for s in session.steps]
    assert changed == [["step1_stdout", "error_counts"], [], ["step3_stdout"], []]
    assert [len(s.variables) for s in session.steps] == [2, 2, 3, 3]
    counts = next(v for v in session.steps[0].variables if v.name == "error_counts")
    assert counts.type == "dict" and json.loads(counts.value) == {"api": 3, "worker": 2, "db": 1}
    # llm_request/llm_response previews are collapsed details on their step.
    assert [d.label for d in session.steps[0].details] == ["LLM request", "LLM response"]
    # child_spawn line 15 / child_result line 17: a child at step 2 whose log is not given with
    # this file. It is described on the step that spawned it, never made a 0-step session.
    assert session.children == []
    [spawned] = [d for d in session.steps[1].details if d.label == f"Child agent {CHILD_RUN}"]
    assert "Result: 'upstream timeout' occurs 3 times" in spawned.text and "Depth: 1" in spawned.text
    assert "Succeeded: yes" in spawned.text
    # rationale is markdown text; step 4's rationale is the string "None" in step_action: dropped.
    assert session.steps[0].text == "Count ERROR lines per service first"
    assert session.steps[3].text == f"**Final answer:** {FINAL}"
    assert session.declared_models == ["scripted-planner-v2"]
    assert [s.number for s in session.steps] == [1, 2, 3, 4]


def _comparable(step):
    # What a snapshot records too. Left out: LLM previews (details) and token split, which only
    # the events have, and checkpoints, which the snapshot of a run does not list.
    return (
        step.kind, step.title, step.text, step.timestamp, step.error, step.reward, step.cumulative_reward,
        step.duration_s, step.usage.total if step.usage else 0, step.memory_notes,
        [(v.name, v.value, v.type, v.changed) for v in step.variables],
        [(c.name, c.code, c.language, c.output, c.is_error, c.arguments) for c in step.tool_calls],
        [child.split(":", 1)[1] for child in step.child_session_ids],
    )


def test_snapshot_and_jsonl_of_the_same_run_render_the_same_steps(corpus: Path) -> None:
    native = read_one(corpus / "rlm/generated/sessions" / f"{RUN}.session.jsonl")
    snapshot = read_one(next((corpus / "rlm/generated/store/snapshots").glob("*.json")))
    assert snapshot.problems == []
    assert len(snapshot.steps) == len(native.steps) == 4
    assert [_comparable(s) for s in snapshot.steps] == [_comparable(s) for s in native.steps]
    for label in ("Task", "Environment", "Completed", "Final answer", "Total reward", "Success rate", "Total tokens"):
        assert fact(snapshot, label) == fact(native, label), label
    assert snapshot.error_count == native.error_count == 1
    # The snapshot only has tokens_used (152, 428, 199, 205): their sum is the same 984.
    assert snapshot.usage.total == 984


def test_run_files_with_delegated_child(corpus: Path) -> None:
    [source] = find_sources(corpus / "rlm/generated/runs", [READER], [])
    [parent] = READER.read(source)
    assert parent.id == RUN and parent.problems == []
    assert [s.title for s in parent.steps] == ["run_python", "delegate", "run_python", "final"]
    # `reward` per step line; cumulative = running sum (0.8, 1.5, 1.2, 2.2 = final total_reward).
    assert [s.reward for s in parent.steps] == pytest.approx([0.8, 0.7, -0.3, 1.0])
    assert [s.cumulative_reward for s in parent.steps] == pytest.approx([0.8, 1.5, 1.2, 2.2])
    # Step 3's observation: success false, KeyError traceback in stderr -> one failed call.
    assert parent.error_count == 1 and parent.first_error_step == 3
    assert fact(parent, "Final answer") == FINAL and fact(parent, "Total reward") == "2.2"
    assert fact(parent, "Completed") == "yes" and fact(parent, "Success rate") == "75% (3 of 4 steps)"
    # final usage 680 + 304 = 984 (it includes the child's calls).
    assert fact(parent, "Total tokens") == "984"
    # Step 2's usage (296/132) includes the child run's 189/84; its own is role_usage root 107/48,
    # used because the child is counted by its own session. Own steps: 86+107+133+165 = 491 in,
    # 66+48+66+40 = 220 out; with the child (82+107 = 189, 62+22 = 84): 984 again.
    assert [(s.usage.input, s.usage.output) for s in parent.steps] == [(86, 66), (107, 48), (133, 66), (165, 40)]
    assert parent.usage.total == 711 and parent.usage_with_children.total == 984
    [child] = parent.children
    assert child.id == CHILD_RUN and child.parent_id == RUN and child.relation == "subagent"
    assert parent.steps[1].child_session_ids == [CHILD_RUN]
    assert child.source == f"{CHILD_RUN}.jsonl"
    # The child file: 2 steps (run_python, final), rewards 0.8 + 1.0 = total_reward 1.8.
    assert [s.title for s in child.steps] == ["run_python", "final"]
    assert [s.cumulative_reward for s in child.steps] == pytest.approx([0.8, 1.8])
    assert fact(child, "Final answer") == "'upstream timeout' occurs 3 times"
    assert fact(child, "Depth") == "1" and fact(child, "Parent run") == RUN
    assert child.error_count == 0


def test_legacy_trajectory_with_children(corpus: Path) -> None:
    session = read_one(corpus / "rlm/generated/trajectories/traj_longest_word.jsonl")
    assert session.problems == []
    # context_load (line 2, before iteration 1) is a collapsed context step; then iterations 1-3
    # (lines 3, 25, 31) of the root, built from iteration_* since iteration_end is never written.
    assert [(s.kind, s.title) for s in session.steps] == [
        ("context", "context_load"), ("assistant", "iteration 1"), ("assistant", "iteration 2"), ("assistant", "iteration 3")
    ]
    assert [s.tool_calls[0].code.splitlines()[0] for s in session.steps[1:]] == [
        "text = open('doc.txt').read()", "print(doc.count('internationalization'))", "doc = open('doc.txt').read()"
    ]
    # Iteration 2: NameError output (line 28) + error event (line 29): one failed call.
    assert session.error_count == 1 and session.first_error_step == 3
    assert session.steps[2].tool_calls[0].is_error and session.steps[2].error is None
    # Tokens, root events only: iteration 1 = llm_request 180 in; llm_response 14 + output 42 out;
    # iteration 3 = output 25 out. run_end's tokens_in 346 is the logged total, a fact.
    assert session.steps[1].usage.input == 180 and session.steps[1].usage.output == 56
    assert session.steps[3].usage.output == 25
    assert fact(session, "Total tokens") == "346"
    assert fact(session, "Final answer") == "The longest word is 'internationalization'; it occurs 3 times."
    assert fact(session, "Completed") == "yes"
    assert session.steps[1].duration_s == pytest.approx(0.031)
    # child_spawn lines 9 and 17 (iteration 1); their events carry parent_id chunk-1 / chunk-2.
    assert [c.title for c in session.children] == [
        "Longest word in characters 0..1990 of doc.txt", "Longest word in characters 1990..3981 of doc.txt"
    ]
    assert session.steps[1].child_session_ids == [c.id for c in session.children]
    for child in session.children:
        assert child.parent_id == session.id
        # one iteration each: reasoning, code, output "internationalization"; 60 in, 20 + 5 out.
        assert [s.tool_calls[0].output for s in child.steps] == ["internationalization"]
        assert (child.usage.input, child.usage.output) == (60, 25)
        assert fact(child, "Result") == "internationalization" and child.status == "completed"
    # run_start (line 1) to run_end (line 37), epoch floats -> aware UTC.
    assert session.started_at.tzinfo is not None
    assert session.duration_s == pytest.approx(1795363138.1282222 - 1795363138.0426352, abs=1e-4)


def test_docs_trajectory_example(corpus: Path) -> None:
    session = read_one(corpus / "rlm/docs-trajectory-example/run_001.jsonl")
    # iteration 1 (reasoning, code, output 45230); sub_llm events at iteration 2 (500 in, 200 out).
    assert [s.title for s in session.steps] == ["iteration 1", "iteration 2"]
    assert session.steps[0].tool_calls[0].output == "45230"
    assert (session.steps[1].usage.input, session.steps[1].usage.output) == (500, 200)
    assert fact(session, "Final answer") == "Sentiment is positive"
    assert session.error_count == 0 and session.declared_models == ["gpt-4o"]


def test_trajectory_reads_data_action_too(tmp_path: Path) -> None:
    # The docs show iteration_code with data.action (an action dict) instead of data.code.
    path = tmp_path / "t.jsonl"
    lines = [
        {"event_type": "run_start", "timestamp": 1.0, "run_id": "t", "data": {"task": "x"}},
        {"event_type": "iteration_start", "timestamp": 2.0, "run_id": "t", "iteration": 1},
        {"event_type": "iteration_code", "timestamp": 3.0, "run_id": "t", "iteration": 1,
         "data": {"action": {"action": "run_python", "code": "print(1)", "rationale": "try"}}},
        {"event_type": "iteration_output", "timestamp": 4.0, "run_id": "t", "iteration": 1, "data": {"output": "1"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = read_one(path)
    [step] = session.steps
    assert step.tool_calls[0].name == "run_python" and step.tool_calls[0].code == "print(1)"
    assert step.text == "try"


def test_example_native_session(data: Path) -> None:
    session = read_one(data / "rlm/sessions/session_example.jsonl")
    assert session.problems == []
    assert [s.title for s in session.steps] == ["run_python", "run_python", "delegate", "final"]
    assert [s.cumulative_reward for s in session.steps] == pytest.approx([0.5, 0.3, 0.7, 1.7])
    assert session.error_count == 1 and session.first_error_step == 2  # the ZeroDivisionError
    assert [s.checkpoint for s in session.steps] == [None, None, "after-regions", None]
    assert [[v.name for v in s.variables if v.changed] for s in session.steps] == [["rows"], ["total"], [], []]
    # The delegated child has no log here: described on step 3, no empty child session.
    assert session.children == []
    [spawned] = [d for d in session.steps[2].details if d.label.startswith("Child agent ")]
    assert "Result: north 310.2, south 256.9" in spawned.text
    # tokens_used 140 + 180 + 120 + 135 = 575 = session_end total_tokens.
    assert session.usage.total == 575 and fact(session, "Total tokens") == "575"


def test_example_run_files(data: Path) -> None:
    [source] = find_sources(data / "rlm/runs", [READER], [])
    [parent] = READER.read(source)
    assert [s.title for s in parent.steps] == ["run_python", "delegate", "final"]
    assert parent.error_count == 1 and parent.first_error_step == 1  # IndexError in step 1
    assert [s.cumulative_reward for s in parent.steps] == pytest.approx([-0.3, 0.4, 1.4])
    [child] = parent.children
    assert parent.steps[1].child_session_ids == [child.id] and child.parent_id == parent.id
    # step 2 own usage (root) 80/30, not 200/70 which includes the child's 120/40.
    assert parent.steps[1].usage.total == 110 and parent.usage_with_children.total == 455


def test_bad_lines_and_unknown_events_are_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"event_type": "session_start", "timestamp": "2026-01-01T00:00:00+00:00", "step": 0, "data": {"task": "t"}}\n'
        "[1, 2]\n"
        '{"event_type": "step_action", "timestamp": "2026-01-01T00:00:01+00:00", "step": 1, "data": {"action": "oops"}}\n'
        '{"event_type": "teleport", "timestamp": "2026-01-01T00:00:02+00:00", "step": 1, "data": {}}\n'
        '{"event_type": "step_result", "timestamp": "2026-01-01T00:00:03+00:00", "step": 1, "data": {"observation": {"error": "Unsupported action \'oops\'."}, "success": false}}\n'
        '{"event_type": "memory_update", "step": "x", "data": {"notes": "not a list"}}\n'
        '{"event_type": "step_end", "timestamp'
    )
    session = read_one(path)
    # line 2 not an object, line 4 unknown event, line 6 notes not a list, line 7 torn.
    found = sorted((p.line, p.kind) for p in session.problems)
    assert found == [(2, "bad_line"), (4, "unknown_event"), (6, "warning"), (7, "bad_line")]
    assert [s.kind for s in session.steps] == ["assistant", "event"]
    # A failure with no code to carry it is a step error: counted once.
    assert session.steps[0].error == "Unsupported action 'oops'." and session.error_count == 1


def test_garbage_files_never_raise(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"snapshot_id": 1, "session_id": null, "steps": [3, {"step": "x", "variables": 5}]}')
    (tmp_path / "b.jsonl").write_text('{"type": "step", "run_id": 7, "environment": "e", "action": [], "observation": "no", "usage": 3}\n')
    (tmp_path / "c.jsonl").write_text('{"event_type": "iteration_code", "timestamp": 1.0, "iteration": "one", "data": {"action": 5}}\n')
    for source in find_sources(tmp_path, [READER], []):
        for session in READER.read(source):
            assert [s.number for s in session.steps] == list(range(1, len(session.steps) + 1))
    # A file that is not rlm-code at all is not claimed.
    (tmp_path / "d.jsonl").write_text('{"type": "session_meta", "payload": {}}\n')
    assert all(source.path.name != "d.jsonl" for source in find_sources(tmp_path, [READER], []))
    assert READER.read(SessionSource("rlm", tmp_path / "d.jsonl", tmp_path))[0].problems


def test_an_action_without_any_result_is_marked_no_result(data: Path, tmp_path: Path) -> None:
    # session_example.jsonl without lines 6 and 9 (step 1's step_result and step_end, the lines
    # that carry its observation): the run_python call has no output, no verdict, no result.
    lines = (data / "rlm/sessions/session_example.jsonl").read_text().splitlines(keepends=True)
    log = tmp_path / "session_example.jsonl"
    log.write_text("".join(lines[:5] + lines[6:8] + lines[9:]))
    session = read_one(log)
    first = session.steps[0].tool_calls[0]
    assert first.missing_result and first.output is None and not first.is_error
    assert not any(call.missing_result for step in session.steps[1:] for call in step.tool_calls)


def test_file_actions_and_test_commands_reach_the_ledger(tmp_path: Path) -> None:
    # The DSPy environment's actions (rlm_code/rlm/environments.py): write_file writes `content`
    # whole, patch_file replaces `search` by `replace`, run_tests runs `command`.
    from replay_site.figures.ledger import ledger

    def step(number: int, action: dict, observation: dict) -> dict:
        return {"type": "step", "run_id": "r", "environment": "dspy", "framework": "native", "task": "Write hello",
                "timestamp": f"2026-12-01T10:00:0{number}+00:00", "step": number, "action": action, "observation": observation}

    path = tmp_path / "r.jsonl"
    lines = [
        step(1, {"action": "write_file", "path": "hello.py", "content": "def hello():\n    return 'hi'\n"}, {"success": True}),
        step(2, {"action": "patch_file", "path": "hello.py", "search": "'hi'", "replace": "'hello'"}, {"success": True}),
        step(3, {"action": "run_tests", "command": "pytest -q"}, {"success": False, "stderr": "1 failed"}),
        step(4, {"action": "patch_file", "path": "gone.py", "search": "x", "replace": "y"}, {"error": "File not found: gone.py"}),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    found = ledger(read_one(path))
    # hello.py: written at #1 (2 lines added), patched at #2 (one line of 'hi' for one of 'hello');
    # gone.py's patch failed (#4), so it changed nothing
    assert [(t.path, t.action, t.added, t.removed, t.steps) for t in found.files] == [("hello.py", "created", 3, 1, [1, 2])]
    assert [(c.command, c.step, c.failed) for c in found.commands] == [("pytest -q", 3, True)]
