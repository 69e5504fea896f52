"""What a session touched: the files it read or changed and the shell commands it ran.

Worked out from the model alone (FileChange and ToolCall), so every reader that records an
edit as a FileChange (Edit/MultiEdit/Write/NotebookEdit, apply_patch, gptme save/patch/append,
Glue edit, rlm write_file/patch_file) is in it without knowing the format; a failed call's
edit is left out, since it changed nothing. A read is a call whose tool is
named like one (Read, read_file, …) and names a path: the model has no other mark for it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from replay_site.model import Session, Step, ToolCall

# How a session left a file (see _then for a file touched several ways).
ACTIONS = ("deleted", "created", "renamed", "modified", "read")
_ACTION_OF_CHANGE = {"add": "created", "delete": "deleted", "rename": "renamed", "modify": "modified"}
_PATH_KEYS = ("file_path", "path", "notebook_path", "filename", "file")
# Shells are what a command line runs in; other code (ipython, rlm's python) is not a command.
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh", "console"})


@dataclass(slots=True)
class FileTouch:
    path: str
    action: str  # one of ACTIONS
    added: int = 0
    removed: int = 0
    steps: list[int] = field(default_factory=list)  # every step that touched it
    changed_in: list[int] = field(default_factory=list)  # the steps that changed it

    @property
    def changed(self) -> bool:
        return self.action != "read"


@dataclass(slots=True)
class CommandRun:
    command: str
    step: int
    exit_code: int | None
    failed: bool
    duration_s: float | None
    title: str = ""  # command_title


@dataclass(slots=True)
class Ledger:
    files: list[FileTouch]
    commands: list[CommandRun]

    @property
    def changed_files(self) -> list[FileTouch]:
        return [touch for touch in self.files if touch.changed]

    @property
    def failed_commands(self) -> int:
        return sum(1 for run in self.commands if run.failed)


def is_command(call: ToolCall) -> bool:
    return bool(call.code) and call.language in SHELL_LANGUAGES and not call.changes


def command_title(call: ToolCall) -> str:
    """What the agent said a command was for, when the log records it (Claude Code's Bash
    `description`, "Run the date tests"): the command's title on its page, the card, the
    ledger and search. Other calls show every argument already."""
    value = call.arguments.get("description") if isinstance(call.arguments, dict) else None
    return " ".join(value.split()) if isinstance(value, str) and is_command(call) else ""


def read_path(call: ToolCall) -> str | None:
    """The path a read-like call read, when it succeeded and names one."""
    if call.is_error or call.changes or not isinstance(call.arguments, dict):
        return None
    name = call.name.lower()
    if not (name.startswith("read") or name in ("view", "notebookread", "open_file")):
        return None
    return next((value for key in _PATH_KEYS if isinstance(value := call.arguments.get(key), str) and value), None)


def _touch(files: dict[str, FileTouch], path: str, action: str, step: int) -> FileTouch:
    touch = files.get(path)
    if touch is None:
        touch = files[path] = FileTouch(path, action)
    else:
        touch.action = _then(touch.action, action)
    if not touch.steps or touch.steps[-1] != step:
        touch.steps.append(step)
    if action != "read" and (not touch.changed_in or touch.changed_in[-1] != step):
        touch.changed_in.append(step)
    return touch


def _then(before: str, now: str) -> str:
    """A file's action after another touch: a delete always says the file is gone; a file
    read and then changed was changed; one created in the session stays "created"; one
    written again after it was deleted was modified."""
    if now == "deleted" or before == "read":
        return now
    if now == "read" or before in ("created", "modified", "renamed"):
        return before
    return "modified"


def ledger(session: Session) -> Ledger:
    """The files (in the order first touched) and commands (in the order run) of a session."""
    found = LedgerFold()
    for step in session.steps:
        found.add(step)
    return found.ledger()


class LedgerFold:
    """`ledger` told one step at a time, in order."""

    def __init__(self) -> None:
        self._files: dict[str, FileTouch] = {}
        self._commands: list[CommandRun] = []

    def add(self, step: Step) -> None:
        files = self._files
        for call in step.tool_calls:
            if call.orphan:
                continue
            # a failed edit changed nothing (old_string not found, a path refused)
            for change in [] if call.is_error else call.changes:
                added, removed = change.line_counts
                touch = _touch(files, change.path, _ACTION_OF_CHANGE.get(change.kind, "modified"), step.number)
                if change.kind == "rename" and change.new_path:
                    touch = _touch(files, change.new_path, "created", step.number)
                touch.added += added
                touch.removed += removed
            if (path := read_path(call)) is not None:
                _touch(files, path, "read", step.number)
            if is_command(call):
                failed = call.is_error or call.exit_code not in (None, 0)
                self._commands.append(CommandRun(call.code or "", step.number, call.exit_code, failed, call.duration_s, command_title(call)))

    def ledger(self) -> Ledger:
        return Ledger(list(self._files.values()), self._commands)


def files_changed(found: Ledger) -> list[dict[str, Any]]:
    """The changed files as sessions.json gives them (plain dicts: the build cache rebuilds
    summaries from JSON)."""
    return [{"path": t.path, "added": t.added, "removed": t.removed, "steps": list(t.changed_in)} for t in found.changed_files]
