"""What went wrong in a session: the failure that mattered, what came next, whether the
session recovered, and its errors grouped by tool and kind. From the model alone.

The failure that mattered is the first failed shell command (a test run, a build), since
a failed read or search is usually the agent feeling its way; without one, the first step
error (an API error), else the first failed call. It counts as passing again where the same
command (by its program: `python -m pytest -q` and `pytest tests/` are both pytest) next
succeeded, and as fixed at the first later step that changed a file, when that came before.
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass

from replay_site import ansi
from replay_site.figures.ledger import is_command
from replay_site.model import Session, Step, ToolCall

# The error's last lines shown, and how much of each.
TAIL_LINES = 6
LINE_CHARS = 200
STEP_ERROR = "step error"  # the "tool" of a step's own error (API error, error record)
# Words that run the program named after them.
_RUNNERS = frozenset({"python", "python3", "-m", "uv", "uvx", "run", "poetry", "pipenv", "npx", "bunx", "bundle",
                      "exec", "sudo", "time", "env", "nice", "timeout"})
# Programs whose first word after them says what they do (cargo test, npm run build).
_WITH_SUBCOMMAND = frozenset({"cargo", "go", "npm", "pnpm", "yarn", "bun", "make", "git", "dotnet", "mvn", "gradle",
                              "./gradlew", "tox", "nox", "just", "deno"})


@dataclass(slots=True)
class Failure:
    step: int
    tool: str
    kind: str  # "exit 1", "error"
    action: str  # the command, or the tool and what it was called on
    tail: list[str]  # the last lines of its error
    key: tuple[str, ...]  # what a later success must match to count as the same action


@dataclass(slots=True)
class ErrorGroup:
    tool: str
    kind: str
    count: int
    first: int
    last: int


@dataclass(slots=True)
class Aftermath:
    """A step number and what happened there."""

    step: int
    action: str


@dataclass(slots=True)
class WhatWentWrong:
    first: Failure
    next: Aftermath | None  # the agent's next action after the failure
    fixed: Aftermath | None  # the first later change of a file
    passed: Aftermath | None  # the same action succeeding later
    groups: list[ErrorGroup]

    @property
    def recovered(self) -> bool:
        return self.passed is not None


def command_key(command: str) -> tuple[str, ...]:
    """The program a command line runs (the last of a `cd x && …` chain's parts that names
    one), past environment assignments and runners, with its subcommand for the tools that
    have them."""
    try:
        words = shlex.split(command.strip().splitlines()[0] if command.strip() else "")
    except ValueError:
        words = command.split()
    parts: list[list[str]] = [[]]
    for word in words:
        if word in ("&&", ";", "||", "|"):
            parts.append([])
        else:
            parts[-1].append(word)
    chosen = next((part for part in parts if part and part[0] != "cd"), words)
    rest = [word for word in chosen if "=" not in word.split("/")[0] or word.startswith("-")]
    while rest and rest[0] in _RUNNERS:
        rest = rest[1:]
    if not rest:
        return ("",)
    program = rest[0].rsplit("/", 1)[-1] if not rest[0].startswith("./") else rest[0]
    subcommand = next((word for word in rest[1:] if not word.startswith("-")), None)
    return (program, subcommand) if program in _WITH_SUBCOMMAND and subcommand else (program,)


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


def _failed(call: ToolCall) -> bool:
    return not call.orphan and (call.is_error or call.exit_code not in (None, 0))


def _tail(text: str) -> list[str]:
    lines = [line.rstrip() for line in ansi.plain(text).splitlines() if line.strip()]
    return [line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…" for line in lines[-TAIL_LINES:]]


def _key(call: ToolCall) -> tuple[str, ...]:
    return ("command", *command_key(call.code or "")) if is_command(call) else ("call", call.name, call_action(call))


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "error")


def what_went_wrong(session: Session) -> WhatWentWrong | None:
    """None for a session without a failure."""
    found = WrongFold()
    for step in session.steps:
        found.add(step)
    return found.result()


class WrongFold:
    """`what_went_wrong` told one step at a time, in order (numbered 1, 2, ...). Which
    failure mattered is known only at the end, so what came after each candidate (the first
    failed command, the first step error, the first failure) is followed from it on."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], ErrorGroup] = {}
        self._command: _Aftermaths | None = None
        self._step: _Aftermaths | None = None
        self._first: _Aftermaths | None = None

    def add(self, step: Step) -> None:
        for index, call in enumerate(step.tool_calls):
            if _failed(call):
                self._group(call.name, _kind(call), step.number)
                if self._first is None or (self._command is None and is_command(call)):
                    found = _Aftermaths(Failure(step.number, call.name, _kind(call), call_action(call), _tail(call.output or ""), _key(call)), index)
                    self._first = self._first or found
                    if found.failure.key[0] == "command":
                        self._command = found
        if step.error:
            self._group(STEP_ERROR, "error", step.number)
            if self._step is None:
                self._step = _Aftermaths(Failure(step.number, STEP_ERROR, "error", _first_line(step.error), _tail(step.error), ("step",)), -1)
                self._first = self._first or self._step
        for followed in {id(each): each for each in (self._command, self._step, self._first) if each is not None}.values():
            followed.add(step)

    def _group(self, tool: str, kind: str, number: int) -> None:
        group = self._groups.get((tool, kind))
        if group is None:
            self._groups[(tool, kind)] = ErrorGroup(tool, kind, 1, number, number)
        else:
            group.count += 1
            group.last = number

    def result(self) -> WhatWentWrong | None:
        mattered = self._command or self._step or self._first
        if mattered is None:
            return None
        first, following, fixed, passed = mattered.failure, mattered.following, mattered.fixed, mattered.passed
        if fixed and passed and fixed.step > passed.step:
            fixed = None  # it passed before anything was changed: no fix to name
        if first.key[0] == "step":
            passed = mattered.later
            if following is None and passed is not None:
                following = passed
        groups = sorted(self._groups.values(), key=lambda group: (-group.count, group.first))
        return WhatWentWrong(first, following, fixed, passed, groups)


class _Aftermaths:
    """What came after one failure: the next action, the first later change of a file, the
    same action succeeding, and (after a step error) the next reply without an error."""

    def __init__(self, failure: Failure, index: int) -> None:
        self.failure, self._index = failure, index
        self.following: Aftermath | None = None
        self.fixed: Aftermath | None = None
        self.passed: Aftermath | None = None
        self.later: Aftermath | None = None

    def add(self, step: Step) -> None:
        failure = self.failure
        if step.number == failure.step:
            calls = step.tool_calls[self._index + 1:] if self._index >= 0 else []
        else:
            calls = step.tool_calls
            if self.later is None and step.kind == "assistant" and not step.error:
                self.later = Aftermath(step.number, _first_line(step.text or step.title or "a reply"))
        for call in calls:
            if self.following is None and not call.orphan:
                self.following = Aftermath(step.number, call_action(call))
            if self.fixed is None and call.changes and not _failed(call):
                self.fixed = Aftermath(step.number, call_action(call))
            if self.passed is None and failure.key[0] != "step" and not _failed(call) and not call.orphan and _key(call) == failure.key:
                self.passed = Aftermath(step.number, call_action(call))
