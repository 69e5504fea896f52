"""The format-free model every reader produces and every renderer consumes.

Readers fill these dataclasses; nothing here knows which agent wrote a log or
what HTML looks like. Figures a session reports (tokens, cost, errors) are
derived from its steps, never stored twice, so they cannot disagree.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

StepKind = Literal["user", "assistant", "context", "event"]
CostSource = Literal["log", "estimate", "unknown"]
ChangeKind = Literal["add", "modify", "delete", "rename"]
ProblemKind = Literal["bad_line", "unknown_event", "skipped_file", "warning"]
DiffLine = Literal["hunk", "file", "add", "del", "ctx"]
HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# What became of a log line: shown on the page, left out by design (the producer's own
# bookkeeping), or of a kind its reader does not know.
RECORD_FATES = ("shown", "not_shown", "unknown")
RecordCounts = dict[str, dict[str, int]]  # fate -> line kind -> lines
# How the producers say the user refused a call, so it never ran: "The user doesn't want to
# proceed" (Claude Code; "…doesn't want to take this action" when the user stopped it), "User
# denied tool execution" (Glue), "rejected by user" (Codex), "Execution declined by user"
# (gptme), "The user rejected permission" (OpenCode), "User did not allow tool call" (Gemini).
# A refusal is the user's choice, not the agent's failure: never counted as an error.
DECLINED = re.compile(r"\buser (?:doesn't|does not) want to (?:proceed|take this action)|\buser (?:has )?(?:denied|rejected|declined"
                      r"|refused|did not allow|didn't allow)\b|\b(?:denied|rejected|declined|refused) by (?:the )?user\b",
                      re.IGNORECASE)
# Where a refusal's words are: at the start of the result (past a producer's "Error: " prefix).
DECLINED_HEAD = 300


def no_records() -> RecordCounts:
    return {fate: {} for fate in RECORD_FATES}


def count_record(records: RecordCounts, kind: str, fate: str = "shown", lines: int = 1) -> None:
    counts = records[fate]
    counts[kind] = counts.get(kind, 0) + lines


def not_understood(records: RecordCounts, kind: str, counted_as: str | None = None, lines: int = 1) -> None:
    """`lines` lines counted as shown under `counted_as` (default `kind`) are of a kind their
    reader does not know: they move to "unknown" under `kind`, so each line is counted once."""
    shown = records["shown"]
    was = counted_as or kind
    moved = min(lines, shown.get(was, 0))
    if moved:
        shown[was] -= moved
        if not shown[was]:
            del shown[was]
    count_record(records, kind, "unknown", lines)


@dataclass(slots=True)
class Usage:
    """Tokens of one model response. `input` is uncached input only."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    reasoning: int = 0  # already included in `output`; shown, never added again
    # The log's counts are known to be short of what was billed (a request whose final usage
    # record never came, a turn whose per-response records are missing): a lower bound.
    partial: bool = False

    @property
    def cache_write(self) -> int:
        return self.cache_write_5m + self.cache_write_1h

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write_5m + other.cache_write_5m,
            self.cache_write_1h + other.cache_write_1h,
            self.reasoning + other.reasoning,
            self.partial or other.partial,
        )

    def __bool__(self) -> bool:
        return self.total > 0 or self.reasoning > 0


@dataclass(slots=True)
class Cost:
    """What one step cost. `usd` is None exactly when the source is unknown."""

    usd: float | None
    source: CostSource
    partial: bool = False  # priced from usage known to be short (Usage.partial): at least this
    tier: str = ""  # the service tier it was priced at, as the log names it (Step.tier), "" for standard

    @classmethod
    def unknown(cls) -> Cost:
        return cls(None, "unknown")


@dataclass(slots=True)
class CostTotal:
    """A sum of step costs that never treats an unpriced step as $0."""

    usd: float = 0.0
    priced_steps: int = 0
    estimated_steps: int = 0
    unpriced_steps: int = 0
    unpriced_models: tuple[str, ...] = ()
    partial_steps: int = 0  # priced, from usage the log itself says is short (Cost.partial)

    @property
    def is_lower_bound(self) -> bool:
        return self.unpriced_steps > 0 or self.partial_steps > 0

    @property
    def source(self) -> CostSource:
        if self.priced_steps == 0:
            return "unknown"
        return "estimate" if self.estimated_steps else "log"

    def add(self, cost: Cost | None, model: str | None) -> None:
        if cost is None:
            return
        if cost.usd is None:
            self.unpriced_steps += 1
            if model and model not in self.unpriced_models:
                self.unpriced_models = tuple(sorted({*self.unpriced_models, model}))
            return
        self.usd += cost.usd
        self.priced_steps += 1
        self.partial_steps += cost.partial
        if cost.source == "estimate":
            self.estimated_steps += 1

    def merge(self, other: CostTotal) -> None:
        self.usd += other.usd
        self.priced_steps += other.priced_steps
        self.estimated_steps += other.estimated_steps
        self.unpriced_steps += other.unpriced_steps
        self.partial_steps += other.partial_steps
        self.unpriced_models = tuple(sorted({*self.unpriced_models, *other.unpriced_models}))


@dataclass(slots=True)
class Problem:
    """Something in the input that could not be used as-is (skipped, unknown, odd)."""

    kind: ProblemKind
    message: str
    path: str = ""
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        message = f"{self.message}, skipped" if self.kind == "skipped_file" else self.message
        return f"{where}: {message}" if where else message


@dataclass(slots=True)
class Hint(Problem):
    """A warning about this machine's settings rather than a log (Claude Code's
    cleanupPeriodDays): said on the terminal like any, and once on the site's index."""


@dataclass(slots=True)
class FileChange:
    """One file edit. `diff` is a unified diff body (hunks, no ---/+++ header needed)."""

    path: str
    kind: ChangeKind = "modify"
    diff: str = ""
    new_path: str | None = None

    def line_kinds(self) -> Iterator[tuple[DiffLine, str]]:
        """Each line of the diff with what it is. Inside a hunk, a line starting `---`/`+++`
        is a removed/added line whose text begins with `--`/`++`; it is a file header only
        outside hunks (a hunk ends when its line counts are used up). A hunk header without
        numbers (legacy edits) runs to the next header. "\\ No newline at end of file" is
        a note ("file"), not a line of the file."""
        old_left = new_left = 0
        open_ended = False
        for line in self.diff.splitlines():
            in_hunk = open_ended or old_left > 0 or new_left > 0
            if line.startswith("@@"):
                start = HUNK_HEADER.match(line)
                open_ended = start is None
                if start:
                    old_left, new_left = int(start.group(2) or 1), int(start.group(4) or 1)
                yield "hunk", line
            elif (not in_hunk and line.startswith(("+++", "---"))) or line.startswith("\\"):
                yield "file", line
            elif line.startswith("+"):
                new_left -= 1
                yield "add", line
            elif line.startswith("-"):
                old_left -= 1
                yield "del", line
            else:
                old_left, new_left = old_left - 1, new_left - 1
                yield "ctx", line

    @property
    def line_counts(self) -> tuple[int, int]:
        """(lines added, lines removed)."""
        added = removed = 0
        for kind, _ in self.line_kinds():
            added += kind == "add"
            removed += kind == "del"
        return added, removed


@dataclass(slots=True)
class Image:
    media_type: str
    data_base64: str


@dataclass(slots=True)
class ToolCall:
    name: str
    id: str | None = None
    arguments: dict[str, Any] | str | None = None
    # The call's main body when it is code or a command, shown highlighted.
    code: str | None = None
    language: str | None = None
    output: str | None = None
    is_error: bool = False
    exit_code: int | None = None
    duration_s: float | None = None
    changes: list[FileChange] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    todos: list[TodoItem] = field(default_factory=list)
    child_session_id: str | None = None
    # A page the call published (an artifact's address), shown as a link when it is a web link.
    url: str | None = None
    # A result with no call, or a call whose result never came.
    orphan: bool = False
    missing_result: bool = False

    @property
    def declined(self) -> bool:
        """The user refused the call (DECLINED): not an error."""
        return is_declined(self.is_error, self.output)


def is_declined(is_error: bool, output: str | None) -> bool:
    if not is_error or not output:
        return False
    head = output[:DECLINED_HEAD]
    # Every refusal says "user", which casefold() finds in any case (a long s too) at a
    # fraction of the cost of the caseless regex, asked of each failed call several times.
    return "user" in head.casefold() and DECLINED.search(head) is not None


@dataclass(slots=True)
class TodoItem:
    text: str
    status: str = "pending"  # pending | in_progress | completed


@dataclass(slots=True)
class Variable:
    name: str
    value: str
    type: str = ""
    changed: bool = False


@dataclass(slots=True)
class Detail:
    """A labelled collapsed block (LLM prompt preview, raw event, ...)."""

    label: str
    text: str
    language: str | None = None


@dataclass(slots=True)
class Step:
    kind: StepKind
    number: int = 0
    timestamp: datetime | None = None
    model: str | None = None
    title: str | None = None
    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    cost: Cost | None = None
    error: str | None = None
    collapsed: bool = False
    images: list[Image] = field(default_factory=list)
    details: list[Detail] = field(default_factory=list)
    duration_s: float | None = None
    # Run-state for formats that record it (rlm-code); empty elsewhere.
    reward: float | None = None
    cumulative_reward: float | None = None
    variables: list[Variable] = field(default_factory=list)
    memory_notes: list[str] = field(default_factory=list)
    child_session_ids: list[str] = field(default_factory=list)
    checkpoint: str | None = None
    # How the log says the request was served, as price-table keys (service_tier, speed,
    # inference_geo): the rate it is billed at. Empty: the standard rate.
    tier: dict[str, str] = field(default_factory=dict)

    @property
    def calls_made(self) -> int:
        """The step's tool calls, an orphan result (shown, with no call in the log) not one of them."""
        return sum(1 for call in self.tool_calls if not call.orphan)

    @property
    def failed_tool_calls(self) -> int:
        # a failed result with no call is still an error; a call the user refused is not
        return sum(1 for call in self.tool_calls if call.is_error and not call.declined)

    @property
    def declined_calls(self) -> int:
        return sum(1 for call in self.tool_calls if call.declined)

    @property
    def error_count(self) -> int:
        return self.failed_tool_calls + (1 if self.error else 0)


@dataclass(slots=True)
class Fact:
    """A labelled value for the session header that only some formats have."""

    label: str
    value: str


@dataclass(slots=True)
class PullRequest:
    """A pull request the log says the session opened or linked."""

    url: str
    number: int | None = None
    repository: str | None = None


@dataclass(slots=True)
class Session:
    id: str
    format: str
    title: str = ""
    source: str = ""  # path relative to the SOURCE argument it was found under
    cwd: str | None = None
    git_branch: str | None = None
    git_commit: str | None = None
    agent_version: str | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    # Naive local timestamps (gptme) cannot be placed in UTC: the page says so.
    local_time: bool = False
    declared_models: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    children: list[Session] = field(default_factory=list)
    parent_id: str | None = None
    # How this session relates to its parent: "subagent" rolls up, "fork" does not.
    relation: str = "subagent"
    project: str | None = None
    # What the producer calls this log when it says (Claude Code's `sessionKind`: "bg" is a
    # background copy of a session, not a session of its own); None when it does not.
    session_kind: str | None = None
    status: str | None = None
    # How the session ended, only when the log itself says so: "completed" (the agent's own
    # completion record), "interrupted" (the user stopped it), "api_error" (its last step is an
    # API error). None when the log is silent; summary.py derives the rest (failed last call …).
    outcome: str | None = None
    facts: list[Fact] = field(default_factory=list)
    pull_requests: list[PullRequest] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Secrets replaced before rendering, per kind (redact/); empty when redaction is off.
    redactions: dict[str, int] = field(default_factory=dict)
    # The lines of this session's log files by fate (RECORD_FATES) and kind: the account of
    # everything read. Filled as lines are read (readers/jsonl.py), moved to "unknown" by the
    # reader that does not know a kind (`not_understood`).
    records: RecordCounts = field(default_factory=no_records)
    # Distinct strings redaction found that the decisions file names neither way (--strict).
    unreviewed: int = 0
    # The log is gone from disk and was read from the archive's copy (archive/): the date
    # (ISO, UTC) the archive first kept it. None for a log read where the agent wrote it.
    kept_since: str | None = None
    # The log was deleted before the archive kept it: only the prompts Claude Code's history
    # still lists are shown (readers/claude/history.py).
    prompts_only: bool = False

    def number_steps(self) -> None:
        """Give steps the contiguous numbers 1..n that page anchors rely on."""
        for index, step in enumerate(self.steps, start=1):
            step.number = index

    def warn(self, kind: ProblemKind, message: str, line: int | None = None) -> None:
        self.problems.append(Problem(kind, message, self.source, line))

    def count_record(self, kind: str, fate: str = "shown", lines: int = 1) -> None:
        count_record(self.records, kind, fate, lines)

    def not_understood(self, kind: str, counted_as: str | None = None, lines: int = 1) -> None:
        not_understood(self.records, kind, counted_as, lines)

    @property
    def models(self) -> list[str]:
        seen = dict.fromkeys(self.declared_models)
        for step in self.steps:
            if step.model:
                seen.setdefault(step.model)
        return list(seen)

    @property
    def tool_calls(self) -> int:
        return sum(step.calls_made for step in self.steps)

    @property
    def failed_tool_calls(self) -> int:
        return sum(step.failed_tool_calls for step in self.steps)

    @property
    def error_count(self) -> int:
        return sum(step.error_count for step in self.steps)

    @property
    def declined_calls(self) -> int:
        return sum(step.declined_calls for step in self.steps)

    @property
    def first_error_step(self) -> int | None:
        return next((step.number for step in self.steps if step.error_count), None)

    @property
    def usage(self) -> Usage:
        total = Usage()
        for step in self.steps:
            if usage := step.usage:  # asked once: a streamed session's steps make it when asked (figures/step_columns.py)
                total = total + usage
        return total

    @property
    def cost(self) -> CostTotal:
        total = CostTotal()
        for step in self.steps:
            total.add(step.cost, step.model)
        return total

    @property
    def duration_s(self) -> float | None:
        if self.started_at and self.ended_at:
            return max(0.0, (self.ended_at - self.started_at).total_seconds())
        return None

    def rolled_up_children(self) -> list[Session]:
        """Descendants whose usage belongs to this session's bill (subagents, not forks)."""
        found: list[Session] = []
        for child in self.children:
            if child.relation == "subagent":
                found.append(child)
                found.extend(child.rolled_up_children())
        return found

    @property
    def usage_with_children(self) -> Usage:
        total = self.usage
        for child in self.rolled_up_children():
            total = total + child.usage
        return total

    @property
    def cost_with_children(self) -> CostTotal:
        total = self.cost
        for child in self.rolled_up_children():
            total.merge(child.cost)
        return total

    def walk(self) -> list[Session]:
        """This session and every descendant, parents first (depth first, in order); iterative,
        so no depth of subagents nesting subagents raises RecursionError."""
        found, stack = [], [self]
        while stack:
            each = stack.pop()
            found.append(each)
            stack.extend(reversed(each.children))
        return found
