"""Geometry for the inline SVG charts, drawn at build time so they need no JavaScript.

Only numbers are computed here; the templates draw the SVG elements.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .formatting import cost_total, money
from .model import Session
from .totals import Group

WIDTH = 720
HEIGHT = 120


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    href: str = ""
    css: str = ""


@dataclass
class Chart:
    title: str
    bars: list[Bar]
    width: int = WIDTH
    height: int = HEIGHT
    baseline: float = HEIGHT
    line: str = ""  # polyline points, when the chart has a running line
    caption: str = ""
    legend: list[tuple[str, str]] = field(default_factory=list)  # (label, css class of its mark)


def _slots(count: int) -> tuple[float, float]:
    slot = WIDTH / max(count, 1)
    return slot, max(slot * 0.8, 0.5)


def cost_bars(session: Session) -> Chart | None:
    """One bar per step, height by cost; failed steps marked so expensive mistakes stand out."""
    costs = [(s.number, s.cost.usd if s.cost and s.cost.usd is not None else 0.0, s.error_count > 0) for s in session.steps]
    peak = max((c for _, c, _ in costs), default=0.0)
    if peak <= 0:
        return None
    slot, width = _slots(len(costs))
    bars = []
    for index, (number, usd, failed) in enumerate(costs):
        height = HEIGHT * usd / peak
        bars.append(Bar(index * slot, HEIGHT - height, width, height, f"step {number}: {money(usd)}", f"#step-{number}", "error" if failed else ""))
    return Chart("Cost per step", bars, caption=f"tallest bar {money(peak)}", legend=[("cost", "bar"), ("step with an error", "bar error")])


def reward_bars(session: Session) -> Chart | None:
    """Per-step reward bars around a zero line, plus the cumulative reward as a line."""
    steps = [s for s in session.steps if s.reward is not None or s.cumulative_reward is not None]
    if not steps:
        return None
    rewards = [s.reward or 0.0 for s in steps]
    cumulative, running = [], 0.0
    for step, reward in zip(steps, rewards):
        running = step.cumulative_reward if step.cumulative_reward is not None else running + reward
        cumulative.append(running)
    top = max([0.0, *rewards, *cumulative])
    bottom = min([0.0, *rewards, *cumulative])
    span = (top - bottom) or 1.0
    scale = HEIGHT / span
    zero = top * scale
    slot, width = _slots(len(steps))
    bars, points = [], []
    for index, (step, reward, total) in enumerate(zip(steps, rewards, cumulative)):
        height = abs(reward) * scale
        y = zero - height if reward >= 0 else zero
        bars.append(Bar(index * slot, y, width, height, f"step {step.number}: reward {reward:g}, total {total:g}", f"#step-{step.number}", "negative" if reward < 0 else ""))
        points.append(f"{index * slot + width / 2:.1f},{zero - total * scale:.1f}")
    return Chart("Reward per step", bars, baseline=zero, line=" ".join(points), caption=f"final cumulative reward {cumulative[-1]:g}", legend=[("reward", "bar"), ("negative reward", "bar negative"), ("cumulative reward", "running")])


def day_charts(days: dict[str, Group]) -> list[Chart]:
    """Cost per day (when any is known) and sessions per day, one bar per day with sessions."""
    if not days:
        return []
    span = f"{min(days)} to {max(days)}"
    found = []
    if any(group.cost.priced_steps for group in days.values()):
        found.append(_per_day("Cost per day", days, lambda group: group.cost.usd, span))
    found.append(_per_day("Sessions per day", days, lambda group: group.sessions, span))
    return found


def _per_day(title: str, days: dict[str, Group], value, span: str) -> Chart:
    peak = max(value(group) for group in days.values()) or 1
    slot, width = _slots(len(days))
    bars = []
    for index, (day, group) in enumerate(days.items()):
        height = HEIGHT * value(group) / peak
        bars.append(Bar(index * slot, HEIGHT - height, width, height, f"{day}: {group.sessions} sessions, {cost_total(group.cost)}"))
    return Chart(title, bars, caption=span)
