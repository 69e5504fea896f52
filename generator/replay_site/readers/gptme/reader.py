"""gptme: `<logs>/<conversation>/conversation.jsonl`, one message per line (FORMATS.md (a)).

Messages carry only role/content/timestamp/metadata: tool calls are parsed out
of assistant text (calls.py), results are the `system` messages after them
(results.py), paired by `call_id`, else by what the result names, else by
position. `events.jsonl`, where present, gives back the messages undone or edited away
(events.py), shown folded where they stood.
"""
from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from replay_site.model import (
    Fact,
    Problem,
    Session,
    Step,
)
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.fields import abandon, first_request, user_prompts
from replay_site.readers.files import Head, open_regular
from replay_site.readers.gptme.events import replay, with_abandoned
from replay_site.readers.gptme.steps import LINE_KINDS, ROLES, VERSION, Builder
from replay_site.readers.jsonl import iter_objects
from replay_site.readers.timestamps import parse_time

CONVERSATION = "conversation.jsonl"
COPIES = ("branches", "views")  # folders of a conversation's forks and compacted views
EVENTS = "events.jsonl"
MAX_CONFIG_BYTES = 1 << 20


def _opens_as_gptme(first: dict[str, Any] | None) -> bool:
    """A log that starts with gptme's system prompt ("You are gptme v0.x …"): unmistakable by content."""
    content = first.get("content") if first else None
    return first is not None and first.get("role") == "system" and isinstance(content, str) and bool(VERSION.search(content[:2000]))


def looks_like_gptme(first: dict[str, Any] | None) -> bool:
    """gptme lines have `role` and `content`; Glue's (and events.jsonl's) have `type`."""
    return bool(first) and first.get("role") in ROLES and "content" in first and "type" not in first


def _config(session: Session, path: Path, label: str) -> str | None:
    """Title, workspace, tool format and model from config.toml; returns the configured model."""
    if not path.is_file():
        return None
    try:
        with open_regular(path) as handle:  # a FIFO named config.toml must not hang the build
            config = tomllib.loads(handle.read(MAX_CONFIG_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        session.problems.append(_problem(f"unreadable config.toml ({exc})", label))
        return None
    chat = config.get("chat") if isinstance(config.get("chat"), dict) else {}
    if isinstance(chat.get("name"), str) and chat["name"].strip():
        session.title = chat["name"].strip()
    if isinstance(chat.get("workspace"), str) and chat["workspace"]:
        session.cwd = chat["workspace"]
    if isinstance(chat.get("tool_format"), str):
        session.facts.append(Fact("Tool format", chat["tool_format"]))
    return chat["model"] if isinstance(chat.get("model"), str) and chat["model"] else None


def _problem(message: str, label: str) -> Problem:
    return Problem("warning", message, label, None)


def _outcome(session: Session) -> str | None:
    """"completed" when the agent's last act was gptme's `complete` tool (no prompt after it)."""
    for step in reversed(session.steps):
        if step.kind == "user":
            return None
        if any(call.name == "complete" and not call.is_error for call in step.tool_calls):
            return "completed"
    return None


class GptmeReader(FileReader):
    name = "gptme"
    label = "gptme"
    env_vars = ("GPTME_LOGS_HOME", "XDG_DATA_HOME")  # what moves default_dirs

    def default_dirs(self) -> list[Path]:
        """gptme's `get_logs_dir()`: $GPTME_LOGS_HOME, else $XDG_DATA_HOME/gptme/logs."""
        if os.environ.get("GPTME_LOGS_HOME"):
            return [Path(os.environ["GPTME_LOGS_HOME"]).expanduser()]
        data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return [Path(data).expanduser() / "gptme" / "logs"]

    def detect(self, path: Path, head: Head) -> bool | None:
        # Inside a folder a log is conversation.jsonl (events.jsonl mirrors it, branches/ and
        # views/ hold its forks and compacted views), or a file of another name that opens with
        # gptme's own system prompt (a copied or renamed log); a file named on its own is taken
        # whatever its name.
        first = head.first_object()
        if not looks_like_gptme(first):
            return None
        if path.name == CONVERSATION or head.named or (path.parent.name not in COPIES and _opens_as_gptme(first)):
            return True
        return None

    def group(self, found: dict[Path, bool], root: Path) -> Iterator[SessionSource]:
        if not root.is_dir():
            paths = [root] if root in found else []
        elif (root / CONVERSATION).is_file():
            paths = [root / CONVERSATION] if root / CONVERSATION in found else []
        else:
            # A SOURCE may be a folder above the logs dir; a conversation's own folder holds
            # no further conversations (branches/, the workspace symlink).
            paths = []
            for path in sorted(found, key=lambda p: (len(p.parts), p.name != CONVERSATION, p)):
                if not any(path.parent.is_relative_to(outer.parent) for outer in paths):
                    paths.append(path)
            paths.sort()
        for path in paths:
            yield SessionSource(self.name, path, root, _companions(path))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        path = source.path
        folder = path.parent.name if path.name == CONVERSATION else path.stem
        session = Session(id=folder, format=self.name, source=source.rel, local_time=True)
        configured = _config(session, path.parent / "config.toml", source.label(path.parent / "config.toml")) \
            if path.name == CONVERSATION else None
        messages = _messages(session, path, source.label(path))
        events = path.parent / EVENTS
        if path.name == CONVERSATION and events in source.related:
            _build(session, with_abandoned(messages, replay(events, session, source.label(events)), session))
        else:
            _build(session, [(line, message, None) for line, message in messages])
        if configured and not any(step.model for step in session.steps):
            session.declared_models.append(configured)
        if not session.title:
            session.title = first_request(user_prompts(session.steps)) or folder
        for branch in (p for p in source.related if p.parent.name == "branches"):
            fork = _branch(session, messages, branch, source.label(branch))
            if fork is not None:
                session.children.append(fork)
        return [session]


READER = GptmeReader()


def _messages(session: Session, path: Path, label: str) -> list[tuple[int, dict[str, Any]]]:
    try:
        return list(iter_objects(path, session.problems, label, session.records, LINE_KINDS))
    except OSError as exc:
        session.problems.append(_problem(f"unreadable ({exc})", label))
        return []


def _build(session: Session, messages: list[tuple[int, dict[str, Any], str | None]]) -> None:
    """Steps from messages, those taken back (an undo or edit, events.py) folded as such."""
    builder = Builder(session)
    for line, message, taken_back in messages:
        before = len(session.steps)
        builder.add(line, message)
        for step in session.steps[before:] if taken_back else ():
            abandon(step, taken_back)
    builder.finish()
    session.outcome = _outcome(session)
    session.number_steps()


def _branch(main: Session, main_messages: list[tuple[int, dict[str, Any]]], path: Path, label: str) -> Session | None:
    """A `branches/<name>.jsonl` log as a fork of the conversation: the messages it shares with
    the conversation from the start are the conversation's, shown collapsed and not counted
    again. A branch holding nothing of its own is not a session."""
    fork = Session(id=f"{main.id}@{path.stem}", format=main.format, source=label, local_time=True,
                   parent_id=main.id, relation="fork", cwd=main.cwd)
    messages = _messages(fork, path, label)
    shared = 0
    while shared < min(len(messages), len(main_messages)) and messages[shared][1] == main_messages[shared][1]:
        shared += 1
    if shared == len(messages) and not fork.problems:
        return None
    _build(fork, [(line, message, None) for line, message in messages[shared:]])
    if shared:
        fork.steps.insert(0, Step("event", title=f"Copied from {main.id}", collapsed=True, timestamp=_stamp(messages[0][1]),
                                  text=f"The first {shared} messages of this branch are the conversation's own "
                                       f"(lines 1-{messages[shared - 1][0]}); they are not counted here."))
        fork.number_steps()
    branch_title = first_request(user_prompts(fork.steps))
    fork.title = f"Branch {path.stem}" + (f": {branch_title}" if branch_title else "")
    return fork


def _stamp(message: dict[str, Any]) -> datetime | None:
    moment = parse_time(message.get("timestamp"))
    return moment.replace(tzinfo=None) if moment is not None else None  # gptme times are local


def _companions(conversation: Path) -> tuple[Path, ...]:
    """The conversation folder's other files: config.toml and events.jsonl (the history of
    the conversation) and branches/ are claimed so that no other reader, and no warning about
    unrecognised files, takes them for sessions of their own."""
    if conversation.name != CONVERSATION:
        return ()
    folder = conversation.parent
    found = [folder / name for name in ("config.toml", EVENTS) if (folder / name).is_file()]
    branches = folder / "branches"
    if branches.is_dir():
        found.extend(sorted(branches.glob("*.jsonl")))
    return tuple(found)
