"""What went wrong in a session: the failure that mattered, what came next, how it came out,
the probes and the user's refusals beside it, and its errors grouped by tool and kind. From
the model alone (README, "What went wrong").

The failure that mattered is of the most telling kind present (figures/failure_kinds.py: a
test, build, type check or lint run, then another command, a step's own error, another call);
a probe (a search or list that found nothing, a read of a path that is not there, a sandbox
refusal) never is, nor is a failure made moot later in the same step (the same action
succeeding there), nor a call the user refused (its own kind: declined by the user). Within a
kind, one the agent worked on (the same action, or a code cell's immediate retry, later
succeeded) outranks one it walked past; else the first. How it came out is judged from what
came after: fixed (that later success; a re-run whose result never came is none), answered (not run again, and the session ended with
the agent's answer), not run again (the session went on), not recovered (nothing came after).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from replay_site import ansi
from replay_site.figures.failure_kinds import CHECK, PROBE, STEP, command_key, failure_kind, is_poll, is_refusal
from replay_site.figures.ledger import command_title, is_command
from replay_site.model import Session, Step, ToolCall

__all__ = ["SAYS_WHAT_FAILED", "Aftermath", "ErrorGroup", "Failure", "WhatWentWrong", "WrongFold", "call_action", "command_key", "what_went_wrong"]

# The error's last lines shown, and how much of each.
TAIL_LINES = 6
LINE_CHARS = 200
# A line that names a failure (the error list's line, the card's tail); and one that is the
# error itself (a Python or JS exception, pytest's `E   …`, a compiler's `error:`).
SAYS_WHAT_FAILED = re.compile(r"error|fail|assert|exception|not found|no such|denied|not permitted|cannot|panic", re.IGNORECASE)
_ERROR_LINE = re.compile(r"^\s*(?:[\w.]*(?:Error|Exception)\b|E {2,}\S|(?:error|fatal|panic)(?:\[\w+\])?:|Traceback)")
STEP_ERROR = "step error"  # the "tool" of a step's own error (API error, error record)
# Failures of one kind followed at once, each a different action: past these, a later failure
# of the kind can only be its first (the fold's work stays bounded on a session of any length).
FOLLOWED_PER_KIND = 8
# Probes and refusals named on the card (the rest are counted).
LISTED = 5
RECOVERIES = ("fixed", "recovered", "answered", "not_run_again", "not_recovered")


@dataclass(slots=True)
class Failure:
    step: int
    tool: str
    kind: str  # "exit 1", "error"
    action: str  # the command, or the tool and what it was called on
    tail: list[str]  # the last lines of its error
    key: tuple[str, ...]  # what a later success must match to count as the same action
    description: str = ""  # what the agent said the call was for (Claude Code's Bash description)


@dataclass(slots=True)
class ErrorGroup:
    tool: str
    kind: str
    count: int
    first: int
    last: int


@dataclass(slots=True)
class Aftermath:
    """A step number and what happened there (`index`: the call's place in the step, -1 for
    a reply), so two aftermaths can be told the same call or not."""

    step: int
    action: str
    index: int = -1


@dataclass(slots=True)
class WhatWentWrong:
    first: Failure | None  # the failure that mattered; None when only probes failed or the user declined
    next: Aftermath | None  # the agent's next action after it (never the passing run itself)
    fixed: Aftermath | None  # the first later change of a file
    passed: Aftermath | None  # the same action succeeding later (the next good reply after a step error)
    recovery: str | None  # one of RECOVERIES; None without a failure that mattered
    probes: list[Aftermath]  # the first LISTED probes
    probe_count: int
    refusals: list[Aftermath]  # the first LISTED calls the user refused
    refusal_count: int
    groups: list[ErrorGroup]  # refusals are not errors: not in them
    # the same action run again later with no result in the log (it stopped there): no success
    unanswered: Aftermath | None = None

    @property
    def recovered(self) -> bool:
        return self.recovery in (None, "fixed", "recovered", "answered")


def call_action(call: ToolCall) -> str:
    """A call in a few words: its command, else its tool and the path or first argument."""
    if call.code:
        return call.code.strip()
    arguments = call.arguments if isinstance(call.arguments, dict) else {}
    value = next((v for k in ("file_path", "path", "notebook_path", "pattern", "query", "url") if isinstance(v := arguments.get(k), str)), None)
    if value is None:
        value = next((v for v in arguments.values() if isinstance(v, str)), "")
    return f"{call.name} {value}".strip()


def _kind(call: ToolCall) -> str:
    return f"exit {call.exit_code}" if call.exit_code not in (None, 0) else "error"


def failed(call: ToolCall) -> bool:
    return not call.orphan and (call.is_error or call.exit_code not in (None, 0))


def _tail(text: str) -> list[str]:
    """The error's last TAIL_LINES lines; when not one of them names a failure (a test runner's
    timing summary and a code frame end it), the lines from its last error line on instead."""
    lines = [line.rstrip() for line in ansi.plain(text).splitlines() if line.strip()]
    shown = lines[-TAIL_LINES:]
    if not any(SAYS_WHAT_FAILED.search(line) for line in shown):
        at = next((index for index in range(len(lines) - 1, -1, -1) if _ERROR_LINE.match(lines[index])), None)
        if at is not None:
            shown = lines[at: at + TAIL_LINES]
    return [line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…" for line in shown]


def _key(call: ToolCall) -> tuple[str, ...]:
    if is_command(call):
        return ("command", *command_key(call.code or ""))
    if call.code:  # a code cell is the same action only as the same code (or its retry, _Aftermaths)
        return ("code", call.name, call.code.strip())
    return ("call", call.name, call_action(call))


def _same_action(call: ToolCall, key: tuple[str, ...]) -> bool:
    # A command's program is one of its words, so a command line without it cannot match:
    # this spares parsing every later command of a long session after an unfixed failure.
    if key[0] == "command" and key[1] not in (call.code or ""):
        return False
    return _key(call) == key


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "error")


def what_went_wrong(session: Session, outcome: str | None = None) -> WhatWentWrong | None:
    """None for a session where nothing failed and nothing was refused. `outcome`: how the
    session ended (figures/summary.py's outcome), which tells an answered end from the rest."""
    if outcome is None:
        from replay_site.figures.summary import outcome as ended  # summary needs nothing of here

        outcome = ended(session)
    found = WrongFold()
    for step in session.steps:
        found.add(step)
    return found.result(outcome)


class WrongFold:
    """`what_went_wrong` told one step at a time, in order (numbered 1, 2, ...). Which
    failure mattered is known only at the end, so what came after each candidate (the first
    failure of each kind and action, FOLLOWED_PER_KIND a kind) is followed from it on."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], ErrorGroup] = {}
        self._followed: dict[int, dict[tuple[str, ...], _Aftermaths]] = {}
        self._active: list[_Aftermaths] = []
        self._probes: list[Aftermath] = []
        self._refusals: list[Aftermath] = []
        self._probe_count = self._refusal_count = 0

    def add(self, step: Step) -> None:
        for index, call in enumerate(step.tool_calls):
            if not failed(call):
                continue
            if is_refusal(call):
                self._refusal_count += 1
                if len(self._refusals) < LISTED:
                    self._refusals.append(Aftermath(step.number, call_action(call), index))
                continue
            self._group(call.name, _kind(call), step.number)
            kind = failure_kind(call)
            if kind == PROBE:
                self._probe(step.number, call, index)
            else:
                failure = Failure(step.number, call.name, _kind(call), call_action(call), _tail(call.output or ""), _key(call), command_title(call))
                self._follow(kind, failure, index)
        if step.error:
            self._group(STEP_ERROR, "error", step.number)
            self._follow(STEP, Failure(step.number, STEP_ERROR, "error", _first_line(step.error), _tail(step.error), ("step",)), -1)
        for followed in self._active:
            followed.add(step)
        self._active = [followed for followed in self._active if not followed.done]

    def _probe(self, number: int, call: ToolCall, index: int) -> None:
        self._probe_count += 1
        if len(self._probes) < LISTED:
            self._probes.append(Aftermath(number, call_action(call), index))

    def _follow(self, kind: int, failure: Failure, index: int) -> None:
        of_kind = self._followed.setdefault(kind, {})
        if failure.key not in of_kind and len(of_kind) < FOLLOWED_PER_KIND:
            of_kind[failure.key] = followed = _Aftermaths(failure, index)
            self._active.append(followed)

    def _group(self, tool: str, kind: str, number: int) -> None:
        group = self._groups.get((tool, kind))
        if group is None:
            self._groups[(tool, kind)] = ErrorGroup(tool, kind, 1, number, number)
        else:
            group.count += 1
            group.last = number

    def result(self, outcome: str) -> WhatWentWrong | None:
        mattered = None
        for kind in range(CHECK, PROBE):
            # a failure the same step made moot (the same action succeeded in it) is a probe's equal
            live = [each for each in self._followed.get(kind, {}).values() if not each.moot]
            if live:
                worked_on = [each for each in live if each.passed]
                mattered = min(worked_on or live, key=lambda each: (each.failure.step, each.index))
                break
        moot = [each for of_kind in self._followed.values() for each in of_kind.values() if each.moot]
        for each in sorted(moot, key=lambda each: (each.failure.step, each.index)):
            self._probe_count += 1
            if len(self._probes) < LISTED:
                self._probes.append(Aftermath(each.failure.step, each.failure.action, each.index))
        if mattered is None and not (self._probe_count or self._refusal_count):
            return None
        groups = sorted(self._groups.values(), key=lambda group: (-group.count, group.first))
        probes = sorted(self._probes, key=lambda each: (each.step, each.index))[:LISTED]
        if mattered is None:
            return WhatWentWrong(None, None, None, None, None, probes, self._probe_count, self._refusals, self._refusal_count, groups)
        following, fixed, passed = mattered.following, mattered.fixed, mattered.passed
        if mattered.failure.key[0] == "step":
            passed = mattered.later
            following = following or passed
        if fixed and passed and fixed.step > passed.step:
            fixed = None  # it passed before anything was changed: no fix to name
        if following and passed and (following.step, following.index) == (passed.step, passed.index):
            following = None  # the next action was the passing run itself: said once, as that
        if passed:
            recovery = "recovered" if mattered.failure.key[0] == "step" else "fixed"
        elif outcome == "completed":
            recovery = "answered"
        elif mattered.following is None and mattered.later is None:
            recovery = "not_recovered"
        else:
            recovery = "not_run_again"
        return WhatWentWrong(mattered.failure, following, fixed, passed, recovery, probes, self._probe_count,
                             self._refusals, self._refusal_count, groups, None if passed else mattered.unanswered)


class _Aftermaths:
    """What came after one failure: the next action, the first later change of a file, the
    same action succeeding (or, after a code cell, its immediate retry of the same tool), and
    the next reply without an error."""

    def __init__(self, failure: Failure, index: int) -> None:
        self.failure, self.index = failure, index
        self.following: Aftermath | None = None
        self.fixed: Aftermath | None = None
        self.passed: Aftermath | None = None
        self.later: Aftermath | None = None
        self.unanswered: Aftermath | None = None

    @property
    def moot(self) -> bool:
        return self.passed is not None and self.passed.step == self.failure.step

    @property
    def done(self) -> bool:
        return None not in (self.following, self.fixed, self.passed, self.later)

    def add(self, step: Step) -> None:
        failure = self.failure
        if step.number == failure.step:
            first = self.index + 1 if self.index >= 0 else len(step.tool_calls)
        else:
            first = 0
            if self.later is None and step.kind == "assistant" and not step.error:
                self.later = Aftermath(step.number, _first_line(step.text or step.title or "a reply"))
        for index in range(first, len(step.tool_calls)):
            call = step.tool_calls[index]
            if call.orphan or is_poll(call):
                continue  # a poll waits on a command already running: not an action of its own
            retry = self.following is None and failure.key[0] == "code" and call.name == failure.tool
            if self.following is None:
                self.following = Aftermath(step.number, call_action(call), index)
            if self.fixed is None and call.changes and not failed(call):
                self.fixed = Aftermath(step.number, call_action(call), index)
            if self.passed is None and failure.key[0] != "step" and not failed(call) and (retry or _same_action(call, failure.key)):
                # a run whose result never came did not pass: the log stops before it says
                if call.missing_result:
                    self.unanswered = self.unanswered or Aftermath(step.number, call_action(call), index)
                else:
                    self.passed = Aftermath(step.number, call_action(call), index)
