"""How every figure is written, on pages and in the terminal alike: one place, one way.

A cost is always written the same way (see `cost`): "$0.0586" as the log recorded it,
"≈ $0.0586" estimated from tokens, "≥ $0.0586" when some steps have no price (a lower
bound), "unknown" when nothing could be priced and "—" when there was nothing to price.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from replay_site.figures.inputs import Inputs
from replay_site.figures.summary import SessionSummary
from replay_site.measures import measured
from replay_site.model import RECORD_FATES, Cost, CostTotal, RecordCounts, Usage


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
    """Dollars alone, without a mark; `cost` is what pages show."""
    if usd is None:
        return "unknown"
    if usd == 0:
        return "$0"
    return f"${usd:.4f}" if usd < 10 else f"${usd:,.2f}"


@dataclass(frozen=True)
class CostText:
    """A cost as written: `text` for cells and lines, `note` saying where it comes from
    (a tooltip on pages), `mark` naming the kind (a CSS class `cost-<mark>`)."""

    text: str
    note: str
    mark: str  # log | estimate | lower-bound | unknown | none

    def __str__(self) -> str:
        return self.text


NOTHING_TO_PRICE = CostText("—", "nothing to price: the log has no tokens or costs", "none")


def cost(usd: float | None, estimated: bool = False, unpriced: int | None = 0, partial: int = 0) -> CostText:
    """The one way to write a cost. `usd` None means nothing was priced; `unpriced` counts the
    steps without a price (None: some, number unknown); `partial` the steps priced from usage
    the log says is short (a lower bound too, with that reason)."""
    if usd is None:
        if unpriced == 0:
            return NOTHING_TO_PRICE
        return CostText("unknown", "no price known for this model", "unknown")
    amount = money(usd)
    if unpriced != 0:
        missing = "some steps" if unpriced is None else counted(unpriced, "step")
        rest = "; the rest estimated from tokens" if estimated else ""
        return CostText(f"≥ {amount}", f"a lower bound: {missing} without a price not included{rest}", "lower-bound")
    if partial:
        rest = ", estimated from tokens" if estimated else ""
        return CostText(f"≥ {amount}", f"a lower bound: the log's usage of {counted(partial, 'step')} is incomplete{rest}",
                        "lower-bound")
    if estimated:
        return CostText(f"≈ {amount}", "estimated from tokens", "estimate")
    return CostText(amount, "as recorded in the log", "log")


def step_cost(value: Cost | None) -> CostText | None:
    if value is None:
        return None
    written = cost(value.usd, value.source == "estimate", 0 if value.usd is not None else 1, int(value.partial))
    return dataclasses.replace(written, note=f"{written.note}; at the {value.tier} rate") if value.tier else written


def total_cost(total: CostTotal) -> CostText:
    return cost(total.usd if total.priced_steps else None, total.estimated_steps > 0, total.unpriced_steps, total.partial_steps)


def cost_total(total: CostTotal) -> str:
    """A session or site total as text (never passes off unpriced steps as $0)."""
    return total_cost(total).text


def summary_cost(summary: SessionSummary, with_children: bool = False) -> CostText:
    """A SessionSummary's own cost, or with its subagents (whose unpriced count it does not keep)."""
    if with_children:
        lower = summary.cost_with_children_is_lower_bound
        partial = summary.partial_steps_with_children
        return cost(summary.cost_with_children_usd, summary.estimated_steps > 0, None if lower and not partial else 0, partial)
    return cost(summary.cost_usd, summary.estimated_steps > 0, summary.unpriced_steps, summary.partial_steps)


def tokens(count: int | None) -> str:
    return "—" if count is None else f"{count:,}"


def usage_line(usage: Usage) -> str:
    """A step's tokens on one line: `3 in · 80 out · 20,000 cached · 200 cache write`."""
    parts = [f"{usage.input:,} in", f"{usage.output:,} out"]
    if usage.cache_read:
        parts.append(f"{usage.cache_read:,} cached")
    if usage.cache_write:
        parts.append(f"{usage.cache_write:,} cache write")
    return " · ".join(parts)


def usage_breakdown(usage: Usage) -> str:
    """A session's tokens spelled out, for the header."""
    text = f"{usage.input:,} input, {usage.output:,} output"
    if usage.reasoning:
        text += f" of which {usage.reasoning:,} reasoning"
    text += f", {usage.cache_read:,} cache read, {usage.cache_write:,} cache write"
    if usage.cache_write_1h:
        text += f", of which {usage.cache_write_1h:,} for 1 hour"
    return text


def first_line(text: str, limit: int) -> str:
    """A text's first non-blank line, cut to `limit` characters with an ellipsis."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def counted(count: int, noun: str) -> str:
    """`1 error`, `2 errors`: the nouns pages count are all regular."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


UNKNOWN_KINDS_LISTED = 10


def records_line(records: RecordCounts) -> str:
    """"M records: X shown, Y not shown by design, Z of unknown kinds (list)" (the account of
    what was read, figures/inputs.py)."""
    shown, hidden, unknown = (sum(records.get(fate, {}).values()) for fate in RECORD_FATES)
    text = f"{counted(shown + hidden + unknown, 'record')}: {shown:,} shown, {hidden:,} not shown by design, {unknown:,} of unknown kinds"
    kinds = sorted(records.get("unknown", {}))
    if kinds:
        more = len(kinds) - UNKNOWN_KINDS_LISTED
        text += f" ({', '.join(kinds[:UNKNOWN_KINDS_LISTED])}{f' and {more} more' if more > 0 else ''})"
    return text


def inputs_line(inputs: Inputs) -> str:
    """The index's one line: "N log files, M records: …", the files skipped, if any, the
    sessions whose log is gone from disk, read from the archive, and those deleted before
    the archive kept them, of which only the prompts are left."""
    text = f"{counted(inputs.files_read, 'log file')}, {records_line(inputs.records)}"
    text += f"; {counted(len(inputs.files_skipped), 'file')} skipped" if inputs.files_skipped else ""
    text += f"; {counted(inputs.from_archive, 'session')} from the archive (log removed from disk)" if inputs.from_archive else ""
    return text + (f"; {counted(inputs.prompts_only, 'session')} of prompts only (log deleted before it was archived)"
                   if inputs.prompts_only else "")


# How a session ended (summary.OUTCOMES): a mark and a word, so it never rests on colour.
OUTCOME_LABELS = {"completed": ("✓", "completed"), "failed": ("✗", "failed"), "interrupted": ("■", "interrupted"),
                  "api_error": ("⚠", "API error"), "unknown": ("?", "unknown")}


def outcome(name: str) -> tuple[str, str]:
    """(mark, word) of an outcome; an unknown name reads as itself."""
    return OUTCOME_LABELS.get(name, ("?", name))


def number(value: float) -> str:
    """A reward or other measured value, as short as it stays exact (`%g`); NaN and ∞ as such."""
    return measured(value)


class RunningCost:
    """The cost of steps 1..N, as each step N comes (a page at a time): a lower bound once an
    unpriced step has passed. `before`: the total of the steps before the first to come (a
    range of a session's pages rendered on its own), copied, never added to."""

    def __init__(self, before: CostTotal | None = None) -> None:
        self.total = dataclasses.replace(before) if before is not None else CostTotal()

    def after(self, step: Any) -> CostText:
        self.total.add(step.cost, step.model)
        return total_cost(self.total)


_BREAK_AFTER = re.compile(r"(?<=[/_:@])(?=[^/._:@])|(?<=\.)(?=[A-Za-z])")


def break_points(text: str) -> list[str]:
    """A name cut where a line may break (after / _ : @, and a dot before a letter: not inside "4.5"), for <wbr> between the parts: a
    model name or id wraps there, never in the middle of a word (hyphens break by themselves)."""
    return _BREAK_AFTER.split(text)


FILTERS = {
    "break_points": break_points,
    "when": when,
    "duration": duration,
    "money": money,
    "cost_total": cost_total,
    "summary_cost": summary_cost,
    "tokens": tokens,
    "counted": counted,
    "outcome": outcome,
}
