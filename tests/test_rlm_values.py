"""rlm-code writes rewards with Python's json: NaN, Infinity and -Infinity as bare tokens, and
integers of any size. The lines are read (orjson refuses them; the standard library parses
those lines only), the values shown as such and never summed (tests/data/rlm/nonfinite)."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from replay_site.figures.compare import total_reward
from replay_site.load import ReadOptions, iter_sessions
from replay_site.pages import charts, formatting
from replay_site.readers.jsonl import loads

NONFINITE = Path(__file__).parent / "data" / "rlm" / "nonfinite"


def test_the_kit_reads_what_pythons_json_writes():
    # Integers beyond 64 bits keep every digit when the log is Python's (orjson makes them floats).
    assert loads(b'{"big": 123456789012345678901234567890}', exact_integers=True) == {"big": 123456789012345678901234567890}
    assert loads(b'{"big": 1' + b"0" * 400 + b"}") == {"big": 10**400}  # beyond a float: orjson refuses it
    value = loads(b'{"reward": NaN, "up": Infinity, "down": -Infinity}')
    assert math.isnan(value["reward"]) and value["up"] == math.inf and value["down"] == -math.inf
    with pytest.raises(ValueError):
        loads(b'{"reward": NaN')  # still broken JSON: still refused


def test_non_finite_rewards_are_kept_shown_and_never_summed():
    [run] = iter_sessions([NONFINITE], ReadOptions(redact=False))
    # runs/run_…020.jsonl: 4 step lines (rewards NaN, Infinity, 0.5, -Infinity; line 2 also
    # holds a 30-digit integer) and a final line whose total_reward is NaN. None is skipped.
    assert run.problems == []
    rewards = [step.reward for step in run.steps]
    assert math.isnan(rewards[0]) and rewards[1:] == [math.inf, 0.5, -math.inf]
    # The running total sums the finite rewards only: 0, 0, 0.5, 0.5.
    assert [step.cumulative_reward for step in run.steps] == [0.0, 0.0, 0.5, 0.5]
    facts = {fact.label: fact.value for fact in run.facts}
    assert facts["Total reward"] == "NaN" and facts["Rewards not summed"] == "NaN or ∞ at step 1, 2, 4"
    assert [formatting.number(value) for value in rewards] == ["NaN", "∞", "0.5", "-∞"]
    assert total_reward(run) == 0.5
    chart = charts.reward_bars(run)
    assert chart is not None  # drawn from the finite rewards, not given up on
    # The run file holds no model; its session events (session_start data.model, merged into
    # this session) do.
    assert run.models == ["planner-x"]
