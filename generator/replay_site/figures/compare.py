"""Compare two sessions of any format: figures side by side, the first divergence, aligned timelines.

`compare_sessions` returns plain data; the compare page (and any library user) is a view
of it. Steps are compared by what the agent *did*, not by how it worded it: context steps
are skipped, and a step's signature is its kind, its tool names, each call's normalized
code or arguments, and whether it succeeded. Assistant wording next to a tool call is
ignored (it varies run to run); a step without tool calls is compared by its text, since
that text is then the step's whole content (a prompt, a final answer).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

from replay_site.measures import finite
from replay_site.model import CostTotal, Session, Step

RowStatus = Literal["same", "differs", "only_a", "only_b"]
# Why two aligned steps differ, most fundamental first; the divergence names the first.
REASONS = {
    "action": "different action",
    "arguments": "different arguments or code",
    "text": "different text",
    "outcome": "different success",
}
EXCERPT = 160


@dataclass
class Figure:
    """One figure of both sessions. `delta` is b - a, None when either side is unknown."""

    label: str
    kind: str  # count | tokens | usd | seconds | reward | ratio: tells the page how to format
    a: float | int | CostTotal | None
    b: float | int | CostTotal | None
    delta: float | None
    prefer: str | None = None  # "lower" | "higher" | None (more steps is neither good nor bad)

    @property
    def better(self) -> str | None:
        """Which side comes out ahead (fewer errors, more reward...), for a visual hint only."""
        if not self.delta or self.prefer is None:
            return None
        return "b" if (self.delta > 0) == (self.prefer == "higher") else "a"


@dataclass
class StepView:
    """What the page shows of one step: its number (for #step-N links) and a one-line gist."""

    number: int
    kind: str
    action: str
    gist: str
    ok: bool


@dataclass
class Row:
    a: StepView | None
    b: StepView | None
    status: RowStatus
    reasons: list[str] = field(default_factory=list)  # keys of REASONS

    @property
    def why(self) -> str:
        return ", ".join(REASONS[r] for r in self.reasons)


@dataclass
class Divergence:
    """The first place the two runs stop doing the same thing."""

    a: StepView | None  # None: session A had already ended (B has an extra step)
    b: StepView | None
    reasons: list[str]
    explanation: str


@dataclass
class SessionSide:
    id: str
    title: str
    format: str
    source: str
    models: list[str]


@dataclass
class Comparison:
    a: SessionSide
    b: SessionSide
    figures: list[Figure]
    divergence: Divergence | None  # None: the significant steps match one for one
    common_steps: int  # significant steps both share before the divergence
    rows: list[Row]

    @property
    def identical(self) -> bool:
        return self.divergence is None


@dataclass(frozen=True)
class _Sig:
    """A step's comparable content; `action` alone is the coarse key for re-aligning."""

    action: str
    body: tuple[str, ...]
    text: str
    ok: bool


def compare_sessions(a: Session, b: Session) -> Comparison:
    steps_a, steps_b = _significant(a), _significant(b)
    sigs_a, sigs_b = [_signature(s) for s in steps_a], [_signature(s) for s in steps_b]
    common = 0
    while common < min(len(sigs_a), len(sigs_b)) and sigs_a[common] == sigs_b[common]:
        common += 1
    rows = [Row(_view(x, sx), _view(y, sy), "same") for x, y, sx, sy in
            zip(steps_a[:common], steps_b[:common], sigs_a[:common], sigs_b[:common])]
    first = _divergence_row(steps_a, steps_b, sigs_a, sigs_b, common)
    divergence = None
    if first is not None:
        rows.append(first)
        skip_a, skip_b = common + (first.a is not None), common + (first.b is not None)
        rows += _align(steps_a[skip_a:], steps_b[skip_b:], sigs_a[skip_a:], sigs_b[skip_b:])
        divergence = Divergence(first.a, first.b, first.reasons, _explain(first, common == len(steps_a), common == len(steps_b)))
    return Comparison(_side(a), _side(b), figures(a, b), divergence, common, rows)


def _significant(session: Session) -> list[Step]:
    """Steps that carry an action or an input; injected context is the same noise on both sides."""
    return [step for step in session.steps if step.kind != "context"]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _call_body(call) -> str:
    """The code or command when the call has one (its arguments then only repeat it with
    volatile extras such as timeouts), else the arguments as canonical JSON."""
    if call.code:
        return _normal(call.code)
    if isinstance(call.arguments, dict):
        return json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return _normal(call.arguments or "")


def _signature(step: Step) -> _Sig:
    names = [call.name for call in step.tool_calls]
    action = f"{step.kind}:{'+'.join(names)}" if names else f"{step.kind}:{'reply' if step.kind == 'assistant' else step.title or step.kind}"
    text = "" if names else _normal(step.text)
    ok = not step.error_count
    return _Sig(action, tuple(_call_body(call) for call in step.tool_calls), text, ok)


def _reasons(x: _Sig, y: _Sig) -> list[str]:
    if x.action != y.action:
        return ["action"] + (["outcome"] if x.ok != y.ok else [])
    found = []
    if x.body != y.body:
        found.append("arguments")
    if x.text != y.text:
        found.append("text")
    if x.ok != y.ok:
        found.append("outcome")
    return found


def _view(step: Step, sig: _Sig) -> StepView:
    gist = next((body for body in sig.body if body), "") or _normal(step.text) or (step.title or "")
    if len(gist) > EXCERPT:
        gist = gist[: EXCERPT - 1] + "…"
    action = sig.action.split(":", 1)[1]
    return StepView(step.number, step.kind, action, gist, sig.ok)


def _pair(x: Step, y: Step, sx: _Sig, sy: _Sig) -> Row:
    reasons = _reasons(sx, sy)
    return Row(_view(x, sx), _view(y, sy), "differs" if reasons else "same", reasons)


def _divergence_row(steps_a, steps_b, sigs_a, sigs_b, i: int) -> Row | None:
    """The row at the first differing position. When one side merely has an extra step
    (the other's step i equals its step i+1), that is the divergence, not a mismatch."""
    if i == len(sigs_a) and i == len(sigs_b):
        return None
    if i == len(sigs_b) or (i + 1 < len(sigs_a) and sigs_a[i + 1] == sigs_b[i] and not
                            (i + 1 < len(sigs_b) and sigs_b[i + 1] == sigs_a[i])):
        return Row(_view(steps_a[i], sigs_a[i]), None, "only_a", ["action"])
    if i == len(sigs_a) or (i + 1 < len(sigs_b) and sigs_b[i + 1] == sigs_a[i]):
        return Row(None, _view(steps_b[i], sigs_b[i]), "only_b", ["action"])
    return _pair(steps_a[i], steps_b[i], sigs_a[i], sigs_b[i])


def _align(steps_a, steps_b, sigs_a, sigs_b) -> list[Row]:
    """Rows after the divergence: identical steps matched first, then, inside each stretch
    that differs, steps of the same action paired (different code, outcome), the rest
    side by side in order, the surplus alone on its side."""
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, sigs_a, sigs_b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [_pair(steps_a[i], steps_b[j], sigs_a[i], sigs_b[j]) for i, j in zip(range(i1, i2), range(j1, j2))]
        else:
            rows += _align_actions(steps_a[i1:i2], steps_b[j1:j2], sigs_a[i1:i2], sigs_b[j1:j2])
    return rows


def _align_actions(steps_a, steps_b, sigs_a, sigs_b) -> list[Row]:
    rows: list[Row] = []
    keys_a, keys_b = [s.action for s in sigs_a], [s.action for s in sigs_b]
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        pairs = list(zip(range(i1, i2), range(j1, j2))) if tag in ("equal", "replace") else []
        rows += [_pair(steps_a[i], steps_b[j], sigs_a[i], sigs_b[j]) for i, j in pairs]
        rows += [Row(_view(steps_a[i], sigs_a[i]), None, "only_a", ["action"]) for i in range(i1 + len(pairs), i2)]
        rows += [Row(None, _view(steps_b[j], sigs_b[j]), "only_b", ["action"]) for j in range(j1 + len(pairs), j2)]
    return rows


def _explain(row: Row, ended_a: bool, ended_b: bool) -> str:
    if row.a is None:
        return f"A ends here; B goes on ({row.b.action})" if ended_a else f"B takes a step ({row.b.action}) that A does not"
    if row.b is None:
        return f"B ends here; A goes on ({row.a.action})" if ended_b else f"A takes a step ({row.a.action}) that B does not"
    parts = [REASONS[r] for r in row.reasons]
    if "action" in row.reasons:
        parts[0] += f" ({row.a.action} vs {row.b.action})"
    if "outcome" in row.reasons:
        parts[-1] += f" ({'succeeded' if row.a.ok else 'failed'} in A, {'succeeded' if row.b.ok else 'failed'} in B)"
    return "; ".join(parts)


def _side(session: Session) -> SessionSide:
    return SessionSide(session.id, session.title or session.id, session.format, session.source, session.models)


def total_reward(session: Session) -> float | None:
    """The run's reward as its log states it (last cumulative reward), else the sum of step
    rewards; None for formats without rewards, so they are never shown as 0."""
    cumulative = [s.cumulative_reward for s in session.steps if s.cumulative_reward is not None]
    if cumulative:
        return cumulative[-1]
    rewards = [s.reward for s in session.steps if s.reward is not None]
    return sum(filter(None, map(finite, rewards)), 0.0) if rewards else None  # NaN and ∞ are never summed


def known_cost(total: CostTotal) -> float | None:
    """A cost that can be subtracted: every priced step known. A lower bound or unknown is not."""
    return total.usd if total.priced_steps and not total.is_lower_bound else None


def _delta(x: float | None, y: float | None) -> float | None:
    return None if x is None or y is None else y - x


def figures(a: Session, b: Session) -> list[Figure]:
    def count(label: str, kind: str, x, y, prefer: str | None = "lower") -> Figure:
        return Figure(label, kind, x, y, _delta(x, y), prefer)

    found = [
        count("Steps", "count", len(a.steps), len(b.steps), None),
        count("Tool calls", "count", a.tool_calls, b.tool_calls, None),
        count("Failed tool calls", "count", a.failed_tool_calls, b.failed_tool_calls),
        count("Errors", "count", a.error_count, b.error_count),
        count("Tokens", "tokens", a.usage.total, b.usage.total),
        Figure("Cost", "usd", a.cost, b.cost, _delta(known_cost(a.cost), known_cost(b.cost)), "lower"),
        count("Duration", "seconds", a.duration_s, b.duration_s),
    ]
    reward_a, reward_b = total_reward(a), total_reward(b)
    if reward_a is not None or reward_b is not None:
        found.append(count("Reward", "reward", reward_a, reward_b, "higher"))
        found.append(count("Reward per 1k tokens", "ratio", _per_k(reward_a, a), _per_k(reward_b, b), "higher"))
    for figure in found:  # float noise (0.8 + 0.7 - 0.3 ...) must not show as a delta
        if isinstance(figure.delta, float):
            figure.delta = round(figure.delta, 9)
    return found


def _per_k(reward: float | None, session: Session) -> float | None:
    tokens = session.usage.total
    return reward / tokens * 1000 if reward is not None and tokens else None
