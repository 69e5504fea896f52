"""The time scrubber's strip and samples, worked out by hand from four steps; a session
without times is laid out by step."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from replay_site.model import Cost, Session, Step, ToolCall
from replay_site.pages import timeline

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def four_steps(times: list[int | None]) -> Session:
    """A prompt, then three assistant steps: #2 costs $0.50, #3 has a failed call, #4 costs $1."""
    made = Session("t", "claude")
    made.steps = [Step("user", text="do it"), Step("assistant", cost=Cost(0.5, "log")),
                  Step("assistant", tool_calls=[ToolCall("bash", output="x", is_error=True)]), Step("assistant", cost=Cost(1.0, "log"))]
    for step, seconds in zip(made.steps, times):
        step.timestamp = START + timedelta(seconds=seconds) if seconds is not None else None
    made.number_steps()
    return made


def test_the_strip_places_each_step_at_its_moment():
    line = timeline.timeline(four_steps([0, 10, 20, 100]))
    # moments in ten-thousandths of 100 s: 0, 1,000, 2,000, 10,000; all four are samples
    assert line.samples == [[0, 1], [1000, 2], [2000, 3], [10000, 4]]
    assert line.fractions == {1: 0, 4: 10000}  # the ends of the one page
    # 125 slices of 8 units: step 1 in slice 0 (prompt), step 3 in slice 2,000 * 125 // 10,000 = 25 (error)
    assert line.prompts == "M0 16h7v6h-7z"
    assert line.errors == "M200 23h7v6h-7z"
    # cost: slice 12 (step 2, $0.50) half the height of slice 124 (step 4, $1.00, the top: 13 units up from 14)
    heights = line.costs.removeprefix("M0 14").removesuffix("V14z").split("h8")[:-1]
    assert len(heights) == 125 and heights[12] == "V7.5" and heights[124] == "V1"
    assert {h for i, h in enumerate(heights) if i not in (12, 124)} == {"V14"}
    assert (line.start, line.end, line.by_time) == ("2026-03-01 09:00:00 UTC", "2026-03-01 09:01:40 UTC", True)
    # the page of steps 1-4: its band spans the whole strip, the mark at its first step
    shown = timeline.scrubber(line, range(1, 5))
    assert (shown.band_x, shown.band_width, shown.thumb_x, shown.first_text) == (0, 1000, 0, "step 1 of 4")


def test_a_step_without_a_time_takes_the_one_before_and_times_never_go_back():
    line = timeline.timeline(four_steps([0, None, 50, 40]))
    assert line.samples == [[0, 1], [0, 2], [10000, 3], [10000, 4]]


def test_a_session_without_times_is_laid_out_by_step():
    line = timeline.timeline(four_steps([None, None, None, None]))
    # by index: 0, 1, 2, 3 of 3
    assert line.samples == [[0, 1], [3333, 2], [6667, 3], [10000, 4]]
    assert (line.start, line.end, line.by_time) == ("step 1", "step 4", False)
    assert (line.first, line.last) == (1, 4)
    assert timeline.timeline(Session("empty", "claude")) is None


def test_an_exported_part_of_a_session_keeps_its_step_numbers():
    """`export --steps 40-43`: the steps keep their numbers, the strip spans them alone."""
    part = four_steps([0, 10, 20, 100])
    for offset, step in enumerate(part.steps):
        step.number = 40 + offset
    line = timeline.timeline(part)
    assert (line.first, line.last) == (40, 43)
    assert line.samples == [[0, 40], [1000, 41], [2000, 42], [10000, 43]]
    shown = timeline.scrubber(line, range(40, 44))
    assert (shown.first, shown.first_text, shown.band_width) == (40, "step 40 of 43", 1000)
