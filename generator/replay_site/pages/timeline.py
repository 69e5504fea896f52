"""The time scrubber of a session page: a strip over the session's whole duration.

Its size is the same whatever the session's length: the strip is drawn from BINS slices of
the duration (prompts, errors and cost per slice), and a script finds the step at a moment
from SAMPLES (time, step) pairs, interpolating between them. Positions are in ten-thousandths
of the duration (`SCALE`), so the session map stays small and exact in integers.
A session without usable times (no timestamps, or all at one moment) is laid out by step.
"""
from __future__ import annotations

from dataclasses import dataclass

from replay_site.model import Session, Step
from replay_site.pages import formatting, paging

BINS = 125
SLOT = 8  # WIDTH / BINS
SAMPLES = 129
SCALE = 10_000
WIDTH = 1000  # the strip's SVG units across
COST_TOP, COST_BOTTOM = 1, 14  # cost bars grow up from COST_BOTTOM
PROMPT_ROW = (16, 6)  # (y, height) of the prompt ticks
ERROR_ROW = (23, 6)
HEIGHT = 30
THUMB = 6


@dataclass
class Timeline:
    """What the scrubber of every page of a session shares (SessionDigest.timeline)."""

    first: int  # the first and last step numbers (an exported part of a session starts later than 1)
    last: int
    fractions: dict[int, int]  # the moment of each step that starts or ends a page, by number, in SCALE units
    samples: list[list[int]]  # [[moment, step], ...] for the session map
    prompts: str  # SVG path data of each row
    errors: str
    costs: str
    start: str
    end: str
    by_time: bool  # False: laid out by step (the log has no usable times)
    legend: str


@dataclass
class Scrubber:
    """One page's scrubber: the shared strip, this page's band and where its first step sits."""

    timeline: Timeline
    band_x: float
    band_width: float
    thumb_x: float
    first: int
    first_text: str
    label: str


def _moments(steps: list[Step]) -> tuple[list[float], bool]:
    """Each step's time in seconds from the first known one, never going back (a step without
    a time takes the one before it); by step index when the times span nothing."""
    times, last = [], None
    for step in steps:
        stamp = step.timestamp.timestamp() if step.timestamp else None
        if stamp is not None and (last is None or stamp > last):
            last = stamp
        times.append(last)
    known = [t for t in times if t is not None]
    if not known or known[-1] <= known[0]:
        return [float(index) for index in range(len(steps))], False
    start = known[0]
    return [(t if t is not None else start) - start for t in times], True


def _runs(slices: set[int], y: int, height: int) -> str:
    """Path data of a row of ticks: one rectangle per run of neighbouring slices."""
    parts, ordered = [], sorted(slices)
    for index, start in enumerate(ordered):
        if index and ordered[index - 1] == start - 1:
            continue
        stop = start
        while stop + 1 in slices:
            stop += 1
        width = (stop - start + 1) * SLOT - 1
        parts.append(f"M{start * SLOT} {y}h{width}v{height}h-{width}z")
    return "".join(parts)


def _area(costs: list[float]) -> str:
    """Path data of the cost per slice, as a stepped area over the cost row."""
    top = max(costs)
    if top <= 0:
        return ""
    height = COST_BOTTOM - COST_TOP
    heights = [f"{COST_BOTTOM - height * usd / top:.1f}".removesuffix(".0") for usd in costs]
    return f"M0 {COST_BOTTOM}" + "".join(f"V{y}h{SLOT}" for y in heights) + f"V{COST_BOTTOM}z"


def timeline(session: Session) -> Timeline | None:
    steps = session.steps
    if not steps:
        return None
    moments, by_time = _moments(steps)
    span = moments[-1] or 1.0
    fractions = [round(SCALE * moment / span) for moment in moments]
    prompts, errors, costs = set(), set(), [0.0] * BINS
    for step, fraction in zip(steps, fractions):
        slice_ = min(BINS - 1, fraction * BINS // SCALE)
        if step.kind == "user" and not step.collapsed:
            prompts.add(slice_)
        if step.error_count:
            errors.add(slice_)
        if (cost := step.cost) and cost.usd:
            costs[slice_] += cost.usd
    count = min(len(steps), SAMPLES)
    picked = sorted({round(k * (len(steps) - 1) / max(count - 1, 1)) for k in range(count)})
    last = steps[-1]
    return Timeline(
        first=steps[0].number, last=last.number,
        fractions={steps[index].number: fractions[index] for index in _page_ends(len(steps))},
        samples=[[fractions[index], steps[index].number] for index in picked],
        prompts=_runs(prompts, *PROMPT_ROW), errors=_runs(errors, *ERROR_ROW), costs=_area(costs),
        start=formatting.when(next(step.timestamp for step in steps if step.timestamp), session.local_time) if by_time
        else f"step {steps[0].number:,}",
        end=formatting.when(last.timestamp, session.local_time) if by_time and last.timestamp else f"step {last.number:,}",
        by_time=by_time,
        legend=("time" if by_time else "steps") + ": cost above, prompts, then errors",
    )


def _page_ends(count: int) -> set[int]:
    """The positions of the first and last step of every page, and of the whole session (an
    export's one page)."""
    return {0, count - 1, *range(paging.PAGE_STEPS - 1, count, paging.PAGE_STEPS), *range(paging.PAGE_STEPS, count, paging.PAGE_STEPS)}


def scrubber(line: Timeline, shown: range) -> Scrubber:
    """The scrubber of the page holding the steps `shown`."""
    at = lambda number: line.fractions[number] * WIDTH / SCALE
    start, stop = at(shown.start), at(shown.stop - 1)
    return Scrubber(line, round(start, 1), round(max(stop - start, THUMB), 1), round(min(start, WIDTH - THUMB), 1),
                    shown.start, f"step {shown.start:,} of {line.last:,}",
                    "Time in this session: move to a step" if line.by_time else "Steps of this session: move to a step")
