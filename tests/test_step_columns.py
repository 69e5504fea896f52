"""StepColumns (figures/step_columns.py): a session streamed through a build keeps its steps'
figures as packed rows, and a session whose steps are those rows gives the summary and the
digest its steps give: every session of tests/data and the examples (gptme's naive times and
rlm's rewards among them), and steps with values a row cannot hold, which keep their
StepFigures aside. Its size is checked by structure: bytes held per step."""
from __future__ import annotations

import math
import pickle
import tracemalloc
from datetime import datetime, timedelta, timezone

import pytest

from replay_site.figures import step_columns
from replay_site.figures.step_columns import StepColumns
from replay_site.figures.summary import summarize
from replay_site.load import ReadOptions, examples_dir, iter_sessions
from replay_site.model import Cost, Session, Step, ToolCall, Usage
from replay_site.pages import views

from conftest import DATA


def _figures(session: Session, steps) -> tuple[bytes, bytes]:
    """The summary and the digest of `session` with `steps` as its steps, as pass 1 makes them
    from a stream (its folds told every real step)."""
    real = session.steps
    folded = views.StepFolds()
    for step in real:
        folded.add(step)
    session.steps = steps
    try:
        summary = summarize(session, "agent", "sessions/s.html", "sessions/s.html", folded.ledger.ledger())
        digest = views.digest(session, summary, folded=folded)
    finally:
        session.steps = real
    return pickle.dumps(summary.to_json()), pickle.dumps(digest)


def _columns(steps: list[Step]) -> StepColumns:
    columns = StepColumns()
    for step in steps:
        columns.add(step)
    return columns


def _sessions():
    for root in (DATA, examples_dir()):
        for session in iter_sessions([root], ReadOptions(redact=False)):
            if session.steps:
                yield session


def test_the_rows_give_every_session_the_figures_its_steps_give():
    sessions = list(_sessions())
    assert len(sessions) > 30
    for session in sessions:
        assert _figures(session, _columns(session.steps)) == _figures(session, list(session.steps)), session.source


def _odd_session() -> Session:
    """Steps with what a row cannot hold (a float count, a negative one, a time not in UTC, a
    collapsed flag that is not a bool, an int cost) beside ordinary ones, rewards and children."""
    utc = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    steps = [
        Step("user", timestamp=utc, text="go"),
        Step("assistant", timestamp=utc + timedelta(seconds=1, microseconds=7), model="m1", usage=Usage(10, 20, 30, 1, 2, 3),
             cost=Cost(0.25, "estimate"), tool_calls=[ToolCall("Bash", is_error=True), ToolCall("Task", child_session_id="c1")]),
        Step("assistant", timestamp=datetime(2026, 3, 1, 14, 0, tzinfo=timezone(timedelta(hours=2))), model="m1",
             usage=Usage(1.5, 2), cost=Cost(None, "unknown")),
        Step("assistant", timestamp=None, model=None, usage=Usage(-1, 5), cost=Cost(3, "log"), error="boom"),
        Step("tool", timestamp=datetime(2026, 3, 1, 12, 5), collapsed=1, reward=float("nan"), cumulative_reward=math.inf),
        Step("assistant", timestamp=utc + timedelta(minutes=9), model="m2", usage=Usage(2 ** 40, 1), cost=Cost(-0.0, "log"),
             reward=0.5, cumulative_reward=1.5, child_session_ids=["c2"]),
        Step("assistant", timestamp=utc + timedelta(minutes=10), model="m2", usage=Usage(), cost=Cost(0.0, "log"), collapsed=True),
    ]
    session = Session("odd", "claude", steps=steps, started_at=utc, ended_at=utc + timedelta(minutes=10))
    session.number_steps()
    return session


def test_steps_a_row_cannot_hold_keep_their_figures():
    session = _odd_session()
    columns = _columns(session.steps)
    assert sorted(columns._odd) == [2, 3, 4, 5]  # a float count, a negative one / an int cost, naive time, 2**40
    assert _figures(session, columns) == _figures(session, list(session.steps))
    for step, row in zip(session.steps, columns):
        assert (row.number, row.kind, row.timestamp, row.model, row.usage, row.cost, row.error_count) == \
               (step.number, step.kind, step.timestamp, step.model, step.usage, step.cost, step.error_count)


def test_the_rows_read_as_a_sequence():
    session = _odd_session()
    columns = _columns(session.steps)
    numbers = [step.number for step in session.steps]
    assert len(columns) == 7 and [row.number for row in columns] == numbers
    assert columns[-1].number == 7 and columns[0].number == 1
    with pytest.raises(IndexError):
        columns[7]
    assert [row.number for row in columns[2:]] == numbers[2:]
    assert [row.number for row in columns[1:6][1:3]] == numbers[1:6][1:3]
    assert [row.number for row in columns[::2]] == numbers[::2]
    assert len(columns[4:2]) == 0 and list(columns[4:2]) == []
    assert columns[1:][-1].number == 7 and len(columns[3:100]) == 4


def test_a_step_takes_a_row_of_some_sixty_bytes():
    """What a StepFigures of each step held (with its usage, cost and time): ~555 bytes a step."""
    moment = datetime(2026, 3, 1, tzinfo=timezone.utc)
    steps = [Step("assistant", number=k, timestamp=moment + timedelta(seconds=k), model="m", usage=Usage(1000 + k, 2000 + k, 300_000 + k),
                  cost=Cost(0.001 * k, "estimate"), tool_calls=[ToolCall("Bash", is_error=k % 7 == 0)]) for k in range(1, 20_001)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        columns = _columns(steps)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert not columns._odd
    assert held / len(steps) < 100, held / len(steps)


def test_steps_past_the_profiles_a_session_may_have_keep_their_figures(monkeypatch):
    monkeypatch.setattr(step_columns, "MAX_PROFILES", 3)
    session = _odd_session()
    columns = _columns(session.steps)
    assert len(columns._profiles) == 3 and len(columns._odd) > 4
    assert _figures(session, columns) == _figures(session, list(session.steps))
