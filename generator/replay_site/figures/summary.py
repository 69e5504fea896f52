"""Small per-session summaries: what the index, sessions.json and later builds need, no more.

The index is assembled from these alone, so only one full session is ever in memory.
"""
from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from replay_site.figures.ledger import Ledger, files_changed, ledger
from replay_site.model import CostTotal, Session, Step, ToolCall, Usage


@dataclass(slots=True)
class ModelFigures:
    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_steps: int = 0


@dataclass(slots=True)
class SessionSummary:
    id: str
    format: str
    agent: str
    title: str
    page: str
    source: str
    project: str | None
    started_at: str | None
    ended_at: str | None
    local_time: bool
    duration_s: float | None
    models: list[str]
    steps: int
    tool_calls: int
    failed_tool_calls: int
    errors: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int
    cost_usd: float | None
    cost_source: str
    cost_is_lower_bound: bool
    priced_steps: int
    estimated_steps: int
    unpriced_steps: int
    unpriced_models: list[str]
    # Figures including the rolled-up subagents (each counted once), as the producers' own
    # totals count them (Glue meta.json token_count, the rlm run total, a Claude Code bill).
    input_tokens_with_children: int
    output_tokens_with_children: int
    cache_read_tokens_with_children: int
    cache_write_tokens_with_children: int
    cost_with_children_usd: float | None
    cost_with_children_is_lower_bound: bool
    warnings: int
    parent: str | None
    relation: str | None
    children: list[str]
    # The page of the top-level session read with this one: parent/child ids are resolved
    # inside a family, since the same id can turn up in two sources (a copied log).
    family: str
    outcome: str  # one of OUTCOMES, see outcome()
    by_model: dict[str, ModelFigures] = field(default_factory=dict)
    # Calls the user refused (Step.declined_calls): shown beside the errors, never among them.
    declined: int = 0
    # Steps priced from usage the log itself says is short (Usage.partial): the cost is "≥".
    partial_steps: int = 0
    partial_steps_with_children: int = 0
    # What the producer calls the log (Claude Code's sessionKind: "bg" is a background copy of a
    # session), for telling copies from sessions; None when it does not say.
    session_kind: str | None = None
    # Secrets replaced before rendering, per kind: `[REDACTED:kind]` markers on the page.
    redactions: dict[str, int] = field(default_factory=dict)
    # Child session id -> the step of this session that spawned it (for "Subagent of" links).
    child_steps: dict[str, int] = field(default_factory=dict)
    # The files the session changed ({path, added, removed, steps}) and its shell commands
    # ({run, failed}): figures/ledger.py.
    files_changed: list[dict] = field(default_factory=list)
    commands: dict[str, int] = field(default_factory=lambda: {"run": 0, "failed": 0})
    # Pull requests the log says the session opened: [{number, url, repository}].
    pull_requests: list[dict[str, Any]] = field(default_factory=list)
    # The session's log lines by fate and kind (Session.records), for the account of what was read.
    records: dict[str, dict[str, int]] = field(default_factory=dict)
    # Likely secrets left in place by --no-redact, for its warning (kept by the build cache,
    # never published).
    secrets_left: int = 0
    unreviewed: int = 0  # strings redaction found that the decisions file does not name (--strict; not published)
    # The log is gone from disk; this session was read from the archive, which keeps it since this date (archive/).
    kept_since: str | None = None
    # The log was deleted before the archive kept it: the session is its prompts alone, from
    # the agent's history (readers/claude/history.py).
    prompts_only: bool = False

    def to_json(self) -> dict:
        document = orjson.loads(orjson.dumps(self))  # as asdict() would, at a tenth of its cost
        del document["secrets_left"], document["unreviewed"]
        return document


def share_strings(summaries: list[SessionSummary]) -> None:
    """One copy in this process of the strings the summaries repeat (their tables' keys, the
    model names): summaries from a worker arrive as a pickle of their own, each with its own
    copy of every string, and the build holds them all to its end (3,000 summaries of the
    large benchmark corpus: ~2 MiB less at pass 1's end, where the build's memory peaks)."""
    intern = sys.intern
    for summary in summaries:
        summary.models = [intern(model) for model in summary.models]
        summary.unpriced_models = [intern(model) for model in summary.unpriced_models]
        summary.by_model = {intern(model): figures for model, figures in summary.by_model.items()}
        summary.records = {intern(fate): {intern(kind): count for kind, count in kinds.items()}
                           for fate, kinds in summary.records.items()}
        summary.commands = {intern(key): count for key, count in summary.commands.items()}
        summary.redactions = {intern(kind): count for kind, count in summary.redactions.items()}
        summary.files_changed = [{intern(key): value for key, value in file.items()} for file in summary.files_changed]


def page_slug(session: Session, source_rel: str) -> str:
    """A file-name-safe, stable slug: readable id prefix plus a hash that keeps it unique
    even when two files carry the same session id."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "-", session.id).strip("-.")[:60] or "session"
    digest = hashlib.sha1(f"{session.format}\0{source_rel}\0{session.id}".encode()).hexdigest()[:8]
    return f"{readable}-{digest}"


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def cost_usd(total: CostTotal) -> float | None:
    """A total's dollars as the JSON outputs give them: None (unknown) when nothing was priced."""
    return round(total.usd, 6) if total.priced_steps else None


def by_model(session: Session) -> dict[str, ModelFigures]:
    figures: dict[str, ModelFigures] = {}
    for step in session.steps:
        usage, cost = step.usage, step.cost
        if not (usage or cost):
            continue
        entry = figures.setdefault(step.model or "unknown model", ModelFigures())
        entry.steps += 1
        usage = usage or Usage()
        entry.input_tokens += usage.input
        entry.output_tokens += usage.output
        entry.cache_read_tokens += usage.cache_read
        entry.cache_write_tokens += usage.cache_write
        if cost and cost.usd is not None:
            entry.cost_usd = round(entry.cost_usd + cost.usd, 6)
        elif cost:
            entry.unpriced_steps += 1
    return dict(sorted(figures.items()))


# How a session ended, as the index shows and filters it.
OUTCOMES = ("completed", "failed", "interrupted", "api_error", "unknown")

# Glue's termination_status and rlm's completion flag, read into Session.status: what the log
# itself says about the end. "running" and "incomplete" say only that it did not finish.
STATED_STATUS = {"completed": "completed", "failed": "failed", "cancelled": "interrupted", "interrupted": "interrupted"}
UNFINISHED_STATUS = {"running", "incomplete"}


# The agent's own word that it has finished, though a call: gptme's `complete`, Terminus's
# (ATIF) `mark_task_complete`, Cline's `attempt_completion`. Its result says nothing of the work.
COMPLETION_TOOLS = frozenset({"complete", "mark_task_complete", "task_complete", "attempt_completion"})


def outcome(session: Session) -> str:
    return ending(session)[0]


# Why an outcome is unknown, as the session's header says it.
STOPPED_MID_WORK = "stopped mid-work: no answer after the last tool result; it may still be running"


def ending(session: Session) -> tuple[str, str]:
    """How the session ended: one rule for every format (README, "How a session ended").

    1. What the log states wins: the reader's `outcome` (a completion record, the user's
       interrupt, a final API error), then its `status` (Glue's termination_status, rlm's
       completion flag). A status saying it did not finish ("running", "incomplete") -> unknown.
       A stated completion whose last step is the agent's calls alone, all answered, with not a
       word from it (stopped mid-work) -> unknown: the agent never said what it made of them.
    2. Otherwise the session's last turn (from its last user or assistant step on) decides:
       an error there (an error step, an aborted turn) -> failed; a user message left
       unanswered, or a call of the last answer whose result never came (a completion
       tool's aside) -> unknown; the last
       answer's own last call failed with nothing after it -> failed; its calls all came back
       and nothing came after them (the log stops mid-work, or the agent is still running)
       -> unknown; else the agent had the last word -> completed, whatever failed before it.
       No steps at all -> unknown.
    With, for an unknown outcome, why it is unknown ("" otherwise)."""
    stated = getattr(session, "outcome", None) or STATED_STATUS.get(session.status or "")
    turns = [index for index, step in enumerate(session.steps) if step.kind in ("user", "assistant")]
    last = session.steps[turns[-1]] if turns else None
    # An orphan result (no call in the log) is not a call the agent made, so not its last.
    calls = [call for call in last.tool_calls if not call.orphan] if last is not None else []
    mid_work = last is not None and last.kind == "assistant" and bool(calls) and calls[-1].name not in COMPLETION_TOOLS
    if stated:
        return ("unknown", STOPPED_MID_WORK) if stated == "completed" and mid_work and not says_something(last) else (stated, "")
    if session.status in UNFINISHED_STATUS:
        return "unknown", "the log says it has not finished"
    if last is None:
        return "unknown", "no message of the user or the agent"
    last_turn = session.steps[turns[-1]:]
    if any(step.error for step in last_turn):
        return "failed", ""
    if last.kind != "assistant":
        return "unknown", "it ends on a message nobody answered"
    if any(call.missing_result and call.name not in COMPLETION_TOOLS for call in calls):
        return "unknown", "a call's result never came; it may still be running"
    if calls and calls[-1].is_error:
        # the user refused the last call and the log ends there: the user stopped it
        return ("interrupted", "") if calls[-1].declined else ("failed", "")
    return ("unknown", STOPPED_MID_WORK) if mid_work else ("completed", "")


def child_steps(session: Session) -> dict[str, int]:
    """Each child session's spawning step: the first step whose call or record names it."""
    found: dict[str, int] = {}
    for step in session.steps:
        for child in [*(call.child_session_id for call in step.tool_calls), *step.child_session_ids]:
            if child:
                found.setdefault(child, step.number)
    return found


class CallFigures:
    """What a session's figures need of a tool call (`StepFigures`): its name only when it is
    a completion tool (outcome), "" otherwise; whether the user refused it (not an error)."""

    __slots__ = ("orphan", "missing_result", "is_error", "child_session_id", "name", "declined")

    def __init__(self, orphan: bool, missing_result: bool, is_error: bool, child_session_id: str | None, name: str = "",
                 declined: bool = False) -> None:
        self.orphan, self.missing_result, self.is_error, self.child_session_id = orphan, missing_result, is_error, child_session_id
        self.name, self.declined = name, declined


def call_figures(call: ToolCall) -> tuple:
    """A call's CallFigures as a tuple (shared between the steps that have the same)."""
    return (call.orphan, call.missing_result, call.is_error, call.child_session_id, call.name if call.name in COMPLETION_TOOLS else "",
            call.declined)


def says_something(step: Step) -> bool:
    """Whether the step has text of its own (the outcome asks it of the last answer)."""
    return bool(step.text and step.text.strip())


class StepFigures:
    """A step as its session's summary, charts and timeline read it, without its texts, calls'
    arguments and outputs: what a long session streamed through a build keeps of each step
    (a Session whose steps are these gives the same figures; an attribute missing raises).
    `shared`: a memo the steps of one session share, so that the calls' figures alike (most
    are) and the model's name are held once, not once a step; and only whether a step has
    an error is kept, not its text (the figures only ask that)."""

    __slots__ = ("number", "kind", "timestamp", "collapsed", "error", "text", "usage", "cost", "model", "reward",
                 "cumulative_reward", "tool_calls", "child_session_ids", "calls_made", "failed_tool_calls", "error_count",
                 "declined_calls")

    def __init__(self, step: Step, shared: dict) -> None:
        self.number, self.kind, self.timestamp, self.collapsed = step.number, step.kind, step.timestamp, step.collapsed
        self.error = True if step.error else None
        self.text = "…" if says_something(step) else ""  # whether it said something, not what
        self.usage, self.cost, self.reward, self.cumulative_reward = step.usage, step.cost, step.reward, step.cumulative_reward
        self.model = shared.setdefault(step.model, step.model)
        calls = tuple(call_figures(call) for call in step.tool_calls)
        self.tool_calls = shared.get(calls) or shared.setdefault(calls, tuple(CallFigures(*each) for each in calls))
        self.child_session_ids = tuple(step.child_session_ids)
        self.calls_made, self.failed_tool_calls, self.error_count = step.calls_made, step.failed_tool_calls, step.error_count
        self.declined_calls = step.declined_calls


def summarize(session: Session, agent: str, page: str, family: str, touched: Ledger | None = None) -> SessionSummary:
    """`touched`: the session's ledger when it is known already (its steps being StepFigures)."""
    usage = session.usage
    cost = session.cost
    with_children = session.cost_with_children
    usage_with_children = session.usage_with_children
    touched = ledger(session) if touched is None else touched
    return SessionSummary(
        id=session.id,
        format=session.format,
        agent=agent,
        title=session.title or session.id,
        page=page,
        source=session.source,
        project=session.project,
        started_at=iso(session.started_at),
        ended_at=iso(session.ended_at),
        local_time=session.local_time,
        duration_s=session.duration_s,
        models=session.models,
        steps=len(session.steps),
        tool_calls=session.tool_calls,
        failed_tool_calls=session.failed_tool_calls,
        errors=session.error_count,
        declined=session.declined_calls,
        input_tokens=usage.input,
        output_tokens=usage.output,
        cache_read_tokens=usage.cache_read,
        cache_write_tokens=usage.cache_write,
        reasoning_tokens=usage.reasoning,
        cost_usd=cost_usd(cost),
        cost_source=cost.source,
        cost_is_lower_bound=cost.is_lower_bound,
        priced_steps=cost.priced_steps,
        estimated_steps=cost.estimated_steps,
        unpriced_steps=cost.unpriced_steps,
        unpriced_models=list(cost.unpriced_models),
        partial_steps=cost.partial_steps,
        input_tokens_with_children=usage_with_children.input,
        output_tokens_with_children=usage_with_children.output,
        cache_read_tokens_with_children=usage_with_children.cache_read,
        cache_write_tokens_with_children=usage_with_children.cache_write,
        cost_with_children_usd=cost_usd(with_children),
        cost_with_children_is_lower_bound=with_children.is_lower_bound,
        partial_steps_with_children=with_children.partial_steps,
        session_kind=session.session_kind,
        warnings=len(session.problems),
        parent=session.parent_id,
        relation=session.relation if session.parent_id else None,
        children=[child.id for child in session.children],
        family=family,
        outcome=outcome(session),
        by_model=by_model(session),
        child_steps=child_steps(session),
        redactions=dict(session.redactions), unreviewed=session.unreviewed,
        files_changed=files_changed(touched),
        commands={"run": len(touched.commands), "failed": touched.failed_commands},
        pull_requests=[{"number": pr.number, "url": pr.url, "repository": pr.repository} for pr in session.pull_requests],
        records={fate: dict(sorted(kinds.items())) for fate, kinds in session.records.items()},
        kept_since=session.kept_since,
        prompts_only=session.prompts_only,
    )
