"""Jinja filters that turn numbers and times into the strings pages show."""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from .model import CostTotal, Session


def when(moment: datetime | str | None, local: bool = False) -> str:
    if moment is None:
        return "—"
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    text = moment.strftime("%Y-%m-%d %H:%M:%S")
    if moment.tzinfo is not None:
        return text + " UTC"
    return text + (" local" if local else "")


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def money(usd: float | None) -> str:
    if usd is None:
        return "unknown"
    if usd == 0:
        return "$0"
    return f"${usd:.4f}" if usd < 10 else f"${usd:,.2f}"


def cost_total(total: CostTotal) -> str:
    """A session or site total that never passes off unpriced steps as $0."""
    if total.priced_steps == 0:
        return "unknown" if total.unpriced_steps else "—"
    text = money(total.usd)
    if total.is_lower_bound:
        steps = "step" if total.unpriced_steps == 1 else "steps"
        return f"≥ {text}, {total.unpriced_steps} {steps} unpriced"
    return ("≈ " if total.source == "estimate" else "") + text


def tokens(count: int | None) -> str:
    return "—" if count is None else f"{count:,}"


def counted(count: int, noun: str) -> str:
    """`1 error`, `2 errors`: the nouns pages count are all regular."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


def running_costs(session: Session) -> dict[int, CostTotal]:
    """Step number -> the cost of steps 1..N, a lower bound once an unpriced step has passed."""
    running, total = {}, CostTotal()
    for step in session.steps:
        total.add(step.cost, step.model)
        running[step.number] = CostTotal(total.usd, total.priced_steps, total.estimated_steps, total.unpriced_steps)
    return running


FILTERS = {
    "when": when,
    "duration": duration,
    "money": money,
    "cost_total": cost_total,
    "tokens": tokens,
    "pretty_json": pretty_json,
    "counted": counted,
}
