"""One outcome rule for every format (figures/summary.py `outcome`, README "How a session
ended"), on hand-made fixtures: the same scenario ends the same way whichever version of its
producer wrote it, and a clean last answer is "completed" whatever failed before it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay_site.figures.summary import outcome
from replay_site.load import ReadOptions, iter_sessions

DATA = Path(__file__).parent / "data"
CODEX = DATA / "codex" / "outcome"
CODEX_047 = CODEX / "rollout-2025-10-20T10-00-00-0a470000-0000-4000-8000-000000000047.jsonl"
CODEX_0169 = CODEX / "rollout-2025-10-20T10-00-00-0a169000-0000-4000-8000-000000000169.jsonl"
CLAUDE_CLEAN = DATA / "claude" / "-home-dev-clean" / "d1000000-0000-4000-8000-000000000001.jsonl"


def outcome_of(root: Path) -> str:
    [session] = [s for s in iter_sessions([root], ReadOptions(redact=False)) if not s.parent_id]
    return outcome(session)


def first_lines(source: Path, count: int, folder: Path, edit=None) -> Path:
    """The first `count` lines of a fixture (a session cut where the scenario says), as a new log."""
    lines = source.read_text().splitlines()[:count]
    if edit:
        lines = [json.dumps(edit(json.loads(line))) if line else line for line in lines]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / source.name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("log", [CODEX_047, CODEX_0169], ids=["codex-0.47", "codex-0.169"])
def test_codex_a_clean_answer_after_a_failed_call_is_completed_in_every_version(log):
    # Both files: `pytest -q` fails (output metadata exit_code 1), then the agent answers why
    # and stops. 0.47 writes no task_complete (it persisted none), 0.169 does (line 13): the same
    # scenario, the same outcome.
    assert outcome_of(log) == "completed"


def test_codex_a_session_ending_on_its_failed_call_is_failed_in_every_version(tmp_path):
    # codex/ended-on-error: the 0.47 scenario's first 6 lines, ending on the failed call's output.
    assert outcome_of(DATA / "codex" / "ended-on-error") == "failed"
    # 0.169 cut at the same place (line 7): no answer, no task_complete; the same outcome.
    assert outcome_of(first_lines(CODEX_0169, 7, tmp_path)) == "failed"


def test_codex_an_interrupted_turn_is_interrupted(tmp_path):
    path = first_lines(CODEX_0169, 7, tmp_path)
    with path.open("a") as log:
        log.write(json.dumps({"timestamp": "2025-10-20T10:00:04.000Z", "type": "event_msg",
                              "payload": {"type": "turn_aborted", "turn_id": "turn-1", "reason": "interrupted"}}) + "\n")
    assert outcome_of(path) == "interrupted"


def test_glue_running_is_unknown_not_failed():
    # meta.json says termination_status "running"; its last tool call failed (line 4), which the
    # old rule read as "failed". A session still running has not ended at all.
    assert outcome_of(DATA / "glue" / "1791000900000-7070-running") == "unknown"


def test_claude_clean_answer_is_completed_and_a_last_failed_call_is_failed(tmp_path):
    assert outcome_of(CLAUDE_CLEAN) == "completed"  # line 6: "All 3 tests pass."

    def failing(line: dict) -> dict:
        for block in line.get("message", {}).get("content", []) if isinstance(line.get("message", {}).get("content"), list) else []:
            if block.get("type") == "tool_result":
                block["is_error"], block["content"] = True, "1 failed"
        return line

    # Lines 1-4: the prompt, the Bash call, its result made an error, and nothing after it.
    assert outcome_of(first_lines(CLAUDE_CLEAN, 4, tmp_path / "cut", failing)) == "failed"


def test_gptme_an_undone_failure_before_a_clean_answer_is_completed():
    # tests/data/gptme/undo-edit: the undone `wc -w notes.txx` failed; the last message is the answer.
    assert outcome_of(DATA / "gptme" / "undo-edit") == "completed"


def test_rlm_a_run_whose_final_says_completed_is_completed():
    # runs/run_…020.jsonl line 5: {"type": "final", "completed": true}.
    assert outcome_of(DATA / "rlm" / "nonfinite") == "completed"
