"""One Claude Code transcript file made into a session line by line: its steps come out in
order, numbered, each as soon as no later line can change it, and the session's own fields
after the last line. A long session then need not be held whole (issue 20): a step waits
only for the last line of its API response (the shape says which line that is) and for
the results of its calls."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from replay_site.model import Fact, Problem, RecordCounts, Session, Step, not_understood
from replay_site.readers.claude.dag import abandoned_lines, response_ends
from replay_site.readers.claude.meta import META_KINDS, SessionMeta, summary_leaves
from replay_site.readers.claude.modes import SETTING_KINDS, Settings
from replay_site.readers.claude.shape import CONTEXT_KEYS, SIDECHAIN, Shape
from replay_site.readers.claude.sidefiles import StoredOutputs
from replay_site.readers.claude.steps import StepBuilder, counts_for_outcome, is_request, outcome_after
from replay_site.readers.fields import FirstRequest
from replay_site.readers.files import plain_name
from replay_site.readers.jsonl import LineKinds, kind_of

# Bookkeeping Claude Code writes for itself (undo snapshots, the prompt queue, streaming progress,
# which duplicates the subagent's own transcript): nothing a reader of the session needs to see.
IGNORED_KINDS = {
    "file-history-snapshot": "undo snapshots of edited files",
    "queue-operation": "prompts queued while the agent worked; they reappear as user lines",
    "progress": "streaming progress of tools, hooks and subagents",
    "last-prompt": "the last prompt, kept for the prompt history",
}
LINE_KINDS = LineKinds(not_shown=IGNORED_KINDS)


class Transcript:
    """The session of the lines of `shape` (a file's, or a sidechain's of it), which were
    counted in `counted` (its own unless it is an inline sidechain, `agent_id`, whose lines
    belong to the file of the main session). Iterate `steps()` once, then ask for `session()`.
    `stored`: the outputs stored beside the log, put in each step's calls as it comes out."""

    def __init__(self, path: Path, label: str, shape: Shape, problems: list[Problem], counted: RecordCounts,
                 agent_id: str | None = None, stored: StoredOutputs | None = None) -> None:
        self.path, self.label, self.problems, self.counted, self.agent_id = path, label, problems, counted, agent_id
        self.builder = StepBuilder(label, abandoned_lines(shape))
        self._lines = _facts_of(path, shape)
        # the first line of each response written over several lines, and its last
        self._response_starts, self._response_lasts = response_ends(shape)
        self._response_at = 0
        self._shape = shape.to_read()  # the rest of its columns let go
        self._ends: list[int] = []  # the last line that can change each step not yet given out
        self._meta = SessionMeta()
        self._settings = Settings()
        self._turn_seconds: list[float] = []
        self._unknown: dict[str, list[int]] = defaultdict(list)
        self._stored, self._stored_warnings = stored, []
        # What the session needs from all of its steps, gathered as they come out.
        self._given = 0
        self._first_request = FirstRequest()
        self._outcome: str | None = None
        self._started: datetime | None = None
        self._ended: datetime | None = None

    def steps(self) -> Iterator[Step]:
        # lines of IGNORED_KINDS are only counted: their type will do
        for number, obj in self._shape.lines(unread_kinds=IGNORED_KINDS, let_go=True):
            self._take(number, obj)
            yield from self._final(number)
        self.builder.finish()
        yield from self._final(None)

    def _take(self, number: int, obj: dict) -> None:
        builder = self.builder
        kind = kind_of(obj)
        if kind == "assistant":
            builder.assistant(number, obj)
            self._settings.take("Effort", obj.get("effort"))
        elif kind == "user":
            builder.user(number, obj)
        elif kind == "system":
            if obj.get("subtype") == "turn_duration":
                if isinstance(obj.get("durationMs"), (int, float)) and not isinstance(obj.get("durationMs"), bool):
                    self._turn_seconds.append(obj["durationMs"] / 1000)
            else:
                builder.system(number, obj)
        elif kind in META_KINDS:
            self._meta.take(kind, obj)
        elif kind in SETTING_KINDS:
            changed = self._settings.take_line(kind, obj)
            if changed and self._given + len(builder.steps):  # a value before the first step is only the header's
                builder.event(number, obj, f"{changed[0]} changed to {changed[1]}")
        elif kind == "attachment":
            attachment = obj.get("attachment") if isinstance(obj.get("attachment"), dict) else {}
            builder.stub(number, obj, f"Attachment: {attachment.get('type', 'unknown')}", kind="context")
        elif kind not in IGNORED_KINDS:  # those are counted as not shown, by design
            self._unknown[LINE_KINDS.kind(obj)].append(number)
            if any(key in obj for key in ("message", "content", "text", "summary")):
                # Unknown but carrying content: keep it visible rather than lose words silently.
                builder.stub(number, obj, f"Unrecognised line: {kind}")

    def _final(self, number: int | None) -> Iterator[Step]:
        """The steps no line after `number` (None: the last line) can change, in order."""
        steps, ends, builder = self.builder.steps, self._ends, self.builder
        while len(ends) < len(steps):  # made on line `number`: a response may go on on later lines
            ends.append(self._response_end(number))
        ready = 0
        while ready < len(steps) and (number is None or (ends[ready] <= number and not builder.waits(steps[ready]))):
            ready += 1
        if not ready:
            return
        done = steps[:ready]
        del steps[:ready], ends[:ready]
        for step in done:
            builder.release(step)
            self._give(step)
            yield step

    def _response_end(self, number: int | None) -> int | None:
        """The last line of the response whose first line is `number` (asked in order)."""
        starts, at = self._response_starts, self._response_at
        while number is not None and at < len(starts) and starts[at] < number:
            at += 1
        self._response_at = at
        return self._response_lasts[at] if number is not None and at < len(starts) and starts[at] == number else number

    def _give(self, step: Step) -> None:
        self._given += 1
        step.number = self._given
        if is_request(step):
            self._first_request.offer(step.text)
        if counts_for_outcome(step):
            self._outcome = outcome_after(step)
        moment = step.timestamp
        if moment:
            if self._started is None or moment < self._started:
                self._started = moment
            if self._ended is None or moment > self._ended:
                self._ended = moment
        if self._stored is not None:
            self._stored.fill(step, self._stored_warnings)

    def session(self) -> Session:
        """The session without its steps, once they have all come out."""
        for kind, numbers in sorted(self._unknown.items()):
            not_understood(self.counted, kind, lines=len(numbers))
            where = ", ".join(map(str, numbers[:10])) + (", ..." if len(numbers) > 10 else "")
            what = f"of unknown kind {kind!r}" if kind != "(no type)" else "without a type"
            self.problems.append(Problem("unknown_event", f"{len(numbers)} line(s) {what} (lines {where})", self.label))
        session = _session(self.path, self._lines, self.label, self.agent_id)
        session.started_at, session.ended_at = self._started, self._ended
        if self.agent_id is None:
            session.records = self.counted
        if self._turn_seconds:
            # Claude Code's own timing of each turn (user prompt to final answer), shown as logged.
            session.facts.append(Fact("Turn durations", ", ".join(f"{seconds:.1f}s" for seconds in self._turn_seconds)))
        session.problems = self.problems + self.builder.problems
        session.facts.extend(self._settings.facts())
        session.session_kind = self._lines.last.get("sessionKind")
        if session.session_kind == "bg":
            session.facts.append(Fact("Session kind", "background copy (bg): the same conversation as another log"))
        elif session.session_kind:
            session.facts.append(Fact("Session kind", session.session_kind))
        self._meta.apply(session, self.path, self._lines.leaves, self._first_request.request or "")
        session.outcome = self._outcome
        for message in self._stored_warnings:
            session.warn("warning", message)
        return session

    def whole(self) -> Session:
        """The session with all of its steps (those whose response never got its final usage
        record kept in `builder.unfinished`, for `mark_unfinished_usage`)."""
        self.builder.unfinished = []
        steps = list(self.steps())
        session = self.session()
        session.steps = steps
        return session


@dataclass(frozen=True)
class _Facts:
    """What a session needs from all of its lines after its steps are built, taken before:
    the shape's columns are let go of while the steps are built."""

    last: dict[str, str]  # the last non-empty string each of CONTEXT_KEYS has
    sidechain: bool  # some line says isSidechain: true
    leaves: set[str]  # the lines' uuids a summary line names as its leaf (meta.py)


def _facts_of(path: Path, shape: Shape) -> _Facts:
    last: dict[str, str] = {}
    looked: set[int] = set()  # most lines share a few contexts: each is looked at once
    contexts = shape.contexts
    for index in reversed(range(len(shape))):
        if contexts[index] in looked:
            continue
        looked.add(contexts[index])
        for key, value in zip(CONTEXT_KEYS, shape.context(index)):
            if key not in last and isinstance(value, str) and value:
                last[key] = value
        if len(last) == len(CONTEXT_KEYS):
            break
    named: set[Any] = {*summary_leaves(path.parent), *shape.leaves.values()}
    titled = shape.titled
    leaves = {titled[uid] for uid in shape.uids if uid in titled and titled[uid] in named}
    return _Facts(last, any(flag & SIDECHAIN for flag in shape.flags), leaves)


def _session(path: Path, lines: _Facts, label: str, agent_id: str | None) -> Session:
    last = lines.last.get
    session_id = last("sessionId") or plain_name(path).stem
    if agent_id is None and path.name.startswith("agent-") and (last("agentId") or lines.sidechain):
        agent_id = last("agentId") or plain_name(path).stem.removeprefix("agent-")
    return Session(
        # A subagent shares its parent's sessionId, so its own id adds the agent's.
        id=f"{session_id}-agent-{agent_id}" if agent_id else session_id,
        format="claude",
        source=label,
        cwd=last("cwd"),
        git_branch=last("gitBranch"),
        agent_version=last("version"),
    )


def mark_unfinished_usage(family: list[tuple[Session, StepBuilder]]) -> None:
    """A Claude Code that writes final usage records (any line of the family has usage
    iterations) leaves ~1 subagent request in 5 with only its first, streaming snapshot
    (anthropics/claude-code#84223): those steps' usage is a lower bound, and the session says so."""
    if not any(builder.writes_final_usage for _, builder in family):
        return
    for session, builder in family:
        for step in builder.unfinished or ():
            step.usage.partial = True
        if builder.unfinished:
            session.facts.append(Fact("Usage incomplete", f"{len(builder.unfinished)} request(s) never got their final usage "
                                      "record in the log (only the first streaming snapshot): tokens and cost are lower bounds"))
