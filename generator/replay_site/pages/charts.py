"""Geometry for the inline SVG charts, drawn at build time so they need no JavaScript.

Only numbers and the strings beside them are computed here; the `chart` macro draws the
SVG elements and the data table that stands in for the picture. A chart holds no links:
the picture is one image (`role="img"`), and the data table links each bar's steps.

A session of more than MAX_BARS steps is drawn with one bar per group of steps (a group
size of 1, 2, 5, 10, 20, 50, ... steps, so the groups start at round step numbers); a
group with an error is drawn in the error colour and marked in a row under the axis, so no
error disappears into a group.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from replay_site.figures.totals import Group
from replay_site.measures import finite
from replay_site.model import CostTotal, Session, Step
from replay_site.pages.formatting import cost_total, counted, money, tokens
from replay_site.pages.paging import step_href

MAX_BARS = 300
WIDTH = 640
HEIGHT = 174
# The plot area; left of it the y-axis values, under it the error marks and the x-axis labels.
LEFT, RIGHT, TOP, BOTTOM = 64, WIDTH - 8, 8, 128
ERROR_ROW_Y, ERROR_ROW_HEIGHT = BOTTOM + 4, 6
LABEL_Y, TITLE_Y = BOTTOM + 24, BOTTOM + 40
MAX_X_LABELS = 7
MIN_BAR = 2.0  # a bar stays visible however many share the axis
MIN_DRAWN_HEIGHT = 0.5  # a bar of nothing still shows where it stands
EDGE = 32  # half the width of a date label
DATE_LABEL_SPACE = 100  # between two date labels: one label's width, half of one more at an end, a gap
NICE = (1, 2, 5)
MONEY_RESOLUTION = 0.0001  # formatting.money shows four decimals below $10
# Distances between date labels: a day, two, a week, two, about a month, a quarter, a year...
DAY_STEPS = (1, 2, 7, 14, 30, 61, 91, 182, 365, 730, 1826, 3652)


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str  # the bar's tooltip
    css: str = ""

    @property
    def drawn_height(self) -> float:
        # here, not in the template: jinja's `max` filter cost a session page's chart 10 µs a bar
        return max(self.height, MIN_DRAWN_HEIGHT)


@dataclass
class Tick:
    at: float  # position along its axis, in SVG units
    label: str
    anchor: str = "end"  # text-anchor: y labels end left of the axis


def _x_tick(at: float, label: str) -> Tick:
    """A label under the x axis, centred on its bar; at either end of the axis it is aligned
    to stay inside the picture."""
    anchor = "start" if at - LEFT < EDGE else "end" if RIGHT - at < EDGE else "middle"
    return Tick(round(at, 1), label, anchor)


@dataclass
class Row:
    """One line of the data table: what a bar shows, in words and figures."""

    label: str
    href: str  # a link to the bar's first step; "" when the bar is not about steps, or its page is beyond the budget
    cells: list[str]
    step: int | None = None  # the bar's first step, when the bar is about steps


@dataclass
class Chart:
    title: str
    description: str  # the picture's aria-label: what a reader would see in it
    bars: list[Bar]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    x_title: str
    columns: list[str]  # headings of the data table, the label column first
    rows: list[Row]
    baseline: float = BOTTOM
    error_marks: list[Bar] = field(default_factory=list)
    line: str = ""  # polyline points, when the chart has a running line
    caption: str = ""
    legend: list[tuple[str, str]] = field(default_factory=list)  # (label, css class of its mark)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = RIGHT
    top: int = TOP
    bottom: int = BOTTOM
    label_y: int = LABEL_Y
    title_y: int = TITLE_Y


def _nice_numbers():
    """1, 2, 5, 10, 20, 50, ... without end."""
    power = 1
    while True:
        for factor in NICE:
            yield factor * power
        power *= 10


def group_size(count: int) -> int:
    """The smallest round number of steps per bar that keeps `count` steps within MAX_BARS."""
    return next(size for size in _nice_numbers() if -(-count // size) <= MAX_BARS)


def _tick_step(span: float, finest: float, most: int = 4) -> float:
    """A round distance between axis values (1, 2 or 5 times a power of ten) giving at most
    `most` intervals over `span`, and no finer than `finest`, the smallest difference the
    labels can show."""
    if span <= 0:
        return finest
    power = 10.0 ** math.floor(math.log10(span / most))
    return max(finest, next(factor * power for factor in (*NICE, 10) if factor * power * most >= span))


def _y_axis(low: float, high: float, label: Callable[[float], str], finest: float) -> tuple[float, float, list[Tick]]:
    """The axis range (round values enclosing low..high) and its ticks, placed in SVG units."""
    integer = finest == 1
    step = _tick_step(high - low, finest)
    bottom = math.floor(low / step + 1e-9) * step
    top = max(math.ceil(high / step - 1e-9) * step, bottom + step)
    count = round((top - bottom) / step)
    values = [round(bottom + index * step, 12) for index in range(count + 1)]
    scale = (BOTTOM - TOP) / (top - bottom)
    ticks = [Tick(round(BOTTOM - (value - bottom) * scale, 1), label(int(value) if integer else value)) for value in values]
    return bottom, top, ticks


def _steps_text(group: Sequence[Step]) -> str:
    first, last = group[0].number, group[-1].number
    return f"step {first}" if first == last else f"steps {first}–{last}"


def _slots(count: int) -> tuple[float, float]:
    slot = (RIGHT - LEFT) / max(count, 1)
    return slot, max(slot * 0.8, MIN_BAR)


def _step_ticks(groups: list[list[Step]], slot: float, width: float) -> list[Tick]:
    """Labels under the bars: the first step number of every k-th bar, k a round number."""
    every = next(size for size in _nice_numbers() if -(-len(groups) // size) <= MAX_X_LABELS)
    return [_x_tick(LEFT + index * slot + width / 2, str(groups[index][0].number)) for index in range(0, len(groups), every)]


def _error_marks(groups: list[list[Step]], slot: float, width: float) -> list[Bar]:
    marks = []
    for index, group in enumerate(groups):
        errors = sum(step.error_count for step in group)
        if errors:
            marks.append(Bar(round(LEFT + index * slot, 1), ERROR_ROW_Y, round(max(width, MIN_BAR), 1), ERROR_ROW_HEIGHT,
                             f"{_steps_text(group)}: {counted(errors, 'error')}", "error"))
    return marks


def _link(number: int, slug: str | None, from_path: str | None) -> str:
    """A link to a step: by page (paging.step_href) when the session page's slug and path are
    known, else to the anchor on the page the chart is on."""
    return step_href(slug, number, from_path) if slug and from_path else f"#step-{number}"


def _grouping_note(steps: int, size: int, bars: int) -> str:
    return f"{counted(steps, 'step')}" + (f", {size} steps per bar ({counted(bars, 'bar')})" if size > 1 else "")


def cost_bars(session: Session, slug: str | None = None, from_path: str | None = None) -> Chart | None:
    """Cost per step (or per group of steps in a long session); steps with an error marked
    so expensive mistakes stand out. `slug` and `from_path` (the page the chart is on,
    relative to the site root) make the data table's links name the page of each step."""
    steps = session.steps
    costs = [cost.usd if (cost := s.cost) and cost.usd is not None else 0.0 for s in steps]
    if max(costs, default=0.0) <= 0:
        return None
    size = group_size(len(steps))
    groups = [steps[start:start + size] for start in range(0, len(steps), size)]
    sums = [sum(costs[start:start + size]) for start in range(0, len(steps), size)]
    if not all(map(math.isfinite, sums)):  # absurd figures in a log: no chart beats a wrong one
        return None
    _, top, y_ticks = _y_axis(0.0, max(sums), money, MONEY_RESOLUTION)
    slot, width = _slots(len(groups))
    bars, rows = [], []
    for index, (group, usd) in enumerate(zip(groups, sums)):
        height = (BOTTOM - TOP) * usd / top
        errors = sum(step.error_count for step in group)
        total = CostTotal()
        for step in group:
            total.add(step.cost, step.model)
        error_text = f", {counted(errors, 'error')}" if errors else ""
        cost_text, steps_text = cost_total(total), _steps_text(group)
        bars.append(Bar(round(LEFT + index * slot, 1), round(BOTTOM - height, 1), round(width, 1), round(height, 1),
                        f"{steps_text}: {cost_text}{error_text}"))
        rows.append(Row(steps_text, _link(group[0].number, slug, from_path), [cost_text, str(errors)], group[0].number))
    peak = max(range(len(sums)), key=lambda i: (sums[i], -i))
    erring = sum(1 for step in steps if step.error_count)
    description = (f"Cost per step: {_grouping_note(len(steps), size, len(groups))}; highest {money(sums[peak])} at "
                   f"{_steps_text(groups[peak])}; {counted(erring, 'step')} with errors. The data table below lists every bar.")
    return Chart("Cost per step", description, bars, y_ticks, _step_ticks(groups, slot, width), "step",
                 ["Steps", "Cost", "Errors"], rows, error_marks=_error_marks(groups, slot, width),
                 caption=f"{_grouping_note(len(steps), size, len(groups))}, highest bar {money(sums[peak])}",
                 legend=[("cost", "bar"), ("has an error (marked under the axis)", "bar error")])


def _number(value: float) -> str:
    return f"{value:g}"


def reward_bars(session: Session, slug: str | None = None, from_path: str | None = None) -> Chart | None:
    """Reward per rewarded step (summed per group in a long session) around a zero line,
    plus the cumulative reward as a line. `slug`/`from_path` as for cost_bars."""
    steps = [s for s in session.steps if s.reward is not None or s.cumulative_reward is not None]
    if not steps:
        return None
    cumulative, running = [], 0.0
    for step in steps:
        logged = finite(step.cumulative_reward)
        running = logged if logged is not None else running + (finite(step.reward) or 0.0)
        cumulative.append(running)
    size = group_size(len(steps))
    groups = [steps[start:start + size] for start in range(0, len(steps), size)]
    rewards = [sum(finite(step.reward) or 0.0 for step in group) for group in groups]  # NaN and ∞ are never summed
    totals = [cumulative[min(start + size, len(steps)) - 1] for start in range(0, len(steps), size)]
    if not all(map(math.isfinite, [*rewards, *totals])):
        return None
    bottom, top, y_ticks = _y_axis(min([0.0, *rewards, *totals]), max([0.0, *rewards, *totals]), _number, 1e-6)
    scale = (BOTTOM - TOP) / (top - bottom)
    zero = BOTTOM + bottom * scale
    slot, width = _slots(len(groups))
    bars, rows, points = [], [], []
    for index, (group, reward, total) in enumerate(zip(groups, rewards, totals)):
        height = abs(reward) * scale
        x = LEFT + index * slot
        bars.append(Bar(round(x, 1), round(zero - height if reward >= 0 else zero, 1), round(width, 1), round(height, 1),
                        f"{_steps_text(group)}: reward {reward:g}, total {total:g}", "negative" if reward < 0 else ""))
        rows.append(Row(_steps_text(group), _link(group[0].number, slug, from_path), [_number(reward), _number(total)], group[0].number))
        points.append(f"{x + width / 2:.1f},{zero - total * scale:.1f}")
    description = (f"Reward per step: {_grouping_note(len(steps), size, len(groups))} with a reward; final cumulative reward "
                   f"{cumulative[-1]:g}. The data table below lists every bar.")
    marks = _error_marks(groups, slot, width)
    legend = [("reward", "bar"), ("negative reward", "bar negative"), ("cumulative reward", "running")]
    return Chart("Reward per step", description, bars, y_ticks, _step_ticks(groups, slot, width), "step",
                 ["Steps", "Reward", "Cumulative reward"], rows, baseline=round(zero, 1), error_marks=marks,
                 line=" ".join(points), caption=f"final cumulative reward {cumulative[-1]:g}",
                 legend=legend + ([("has an error (marked under the axis)", "bar error")] if marks else []))


def day_charts(days: dict[str, Group]) -> list[Chart]:
    """Cost per day (when any is known) and sessions per day, each bar placed at its date so
    days without sessions show as gaps."""
    if not days:
        return []
    found = []
    if any(group.cost.priced_steps for group in days.values()):
        found.append(_per_day("Cost per day", days, lambda group: group.cost.usd, money, MONEY_RESOLUTION))
    found.append(_per_day("Sessions per day", days, lambda group: group.sessions, tokens, 1))
    return found


def _date_ticks(first: date, span: int, slot: float, width: float) -> list[Tick]:
    """Dates under the axis, every k days (k round: 1, 2, 7, 14, 30, ... days)."""
    every = next((days for days in DAY_STEPS if days * slot >= DATE_LABEL_SPACE), DAY_STEPS[-1])
    return [_x_tick(LEFT + offset * slot + width / 2, (first + timedelta(days=offset)).isoformat()) for offset in range(0, span, every)]


def _per_day(title: str, days: dict[str, Group], value: Callable[[Group], float], label: Callable, finest: float) -> Chart:
    first, last = date.fromisoformat(min(days)), date.fromisoformat(max(days))
    span = (last - first).days + 1
    _, top, y_ticks = _y_axis(0, max(value(group) for group in days.values()), label, finest)
    slot, width = _slots(span)
    bars, rows = [], []
    for day, group in sorted(days.items()):
        offset = (date.fromisoformat(day) - first).days
        height = (BOTTOM - TOP) * value(group) / top
        cost = cost_total(group.cost)
        bars.append(Bar(round(LEFT + offset * slot, 1), round(BOTTOM - height, 1), round(width, 1), round(height, 1),
                        f"{day}: {counted(group.sessions, 'session')}, {cost}"))
        rows.append(Row(day, "", [str(group.sessions), str(group.steps), str(group.errors), cost]))
    description = (f"{title} from {first.isoformat()} to {last.isoformat()}: {counted(len(days), 'day')} with sessions "
                   f"over {counted(span, 'day')}. The data table below lists every day.")
    return Chart(title, description, bars, y_ticks, _date_ticks(first, span, slot, width), "day",
                 ["Day", "Sessions", "Steps", "Errors", "Cost"], rows,
                 caption=f"{first.isoformat()} to {last.isoformat()}, bars placed by date")
