"""gptme: `<logs>/<conversation>/conversation.jsonl`, one message per line (FORMATS.md (a)).

Messages carry only role/content/timestamp/metadata: tool calls are parsed out
of assistant text (calls.py), results are the `system` messages after them
(results.py), paired by `call_id`, else by what the result names, else by
position. `events.jsonl` mirrors the conversation and is not read.
"""
from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from replay_site.model import (
    Cost,
    Detail,
    Fact,
    Problem,
    Session,
    Step,
    ToolCall,
    Usage,
)
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.fields import count, first_request, raw_json, user_prompts
from replay_site.readers.files import Head, open_regular
from replay_site.readers.gptme.calls import (
    ParsedCall,
    file_change,
    parse_calls,
    split_thinking,
    strip_calls,
    to_tool_call,
)
from replay_site.readers.gptme.results import (
    AUTO_REPLY,
    ResultInfo,
    classify,
    command_matches,
    context_title,
    path_matches,
)
from replay_site.readers.jsonl import iter_objects
from replay_site.readers.timestamps import parse_time

CONVERSATION = "conversation.jsonl"
COPIES = ("branches", "views")  # folders of a conversation's forks and compacted views
MAX_CONFIG_BYTES = 1 << 20
ROLES = ("system", "user", "assistant")
_VERSION = re.compile(r"You are gptme v?([\w.+-]+)")
_WORKDIR = re.compile(r"\*\*Working Directory:\*\*\s*(\S.*)")


def _opens_as_gptme(first: dict[str, Any] | None) -> bool:
    """A log that starts with gptme's system prompt ("You are gptme v0.x …"): unmistakable by content."""
    content = first.get("content") if first else None
    return first is not None and first.get("role") == "system" and isinstance(content, str) and bool(_VERSION.search(content[:2000]))


def looks_like_gptme(first: dict[str, Any] | None) -> bool:
    """gptme lines have `role` and `content`; Glue's (and events.jsonl's) have `type`."""
    return bool(first) and first.get("role") in ROLES and "content" in first and "type" not in first


def usage_from(metadata: dict[str, Any]) -> Usage | None:
    """Nested `usage` (current) or flat token fields (before _migrate_metadata existed).

    gptme's `input_tokens` is already uncached: Anthropic reports it that way and
    gptme's OpenAI path stores prompt_tokens - cached - cache_creation
    (llm/openai_responses.py `_extract_usage_token_counts`). So it is used as-is.
    """
    raw = metadata.get("usage")
    if not isinstance(raw, dict):
        raw = metadata
    keys = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens")
    if not any(key in raw for key in keys):
        return None
    return Usage(
        input=count(raw.get("input_tokens")),
        output=count(raw.get("output_tokens")),
        cache_read=count(raw.get("cache_read_tokens")),
        cache_write_5m=count(raw.get("cache_creation_tokens")),  # gptme asks for the default 5-minute TTL
    )


@dataclass
class _Pending:
    call: ToolCall
    parsed: ParsedCall
    paired: bool = False


class _Builder:
    """Turns messages into steps, one at a time, keeping the calls still awaiting results."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.group: list[_Pending] = []  # calls of the latest assistant message
        self.step: Step | None = None  # that message's step (orphan results go there)
        self.last: _Pending | None = None  # the call the latest result went to
        self.known: dict[str, str] = {}  # file texts seen so far, for real diffs

    def add(self, line: int, message: dict[str, Any]) -> None:
        role, content = message.get("role"), message.get("content")
        role = role if isinstance(role, str) else repr(role)
        timestamp = parse_time(message.get("timestamp"))
        if timestamp is not None and timestamp.tzinfo is not None:
            # gptme writes naive local times; an aware one (a damaged or foreign line) is
            # shown by its wall clock too, so that all of the session's times compare.
            timestamp = timestamp.replace(tzinfo=None)
        if role not in ROLES or not isinstance(content, str):
            self._close()
            what = f"role {role!r}" if role not in ROLES else "content that is not text"
            self.session.steps.append(Step("event", timestamp=timestamp, title=f"Unknown message ({what})",
                                           details=[Detail("Raw JSON", raw_json(message), "json")]))
            self.session.warn("unknown_event", f"message with {what}, kept as a raw event", line)
            return
        self._time(timestamp)
        if role == "system":
            self._system(message, content, timestamp)
        elif role == "user":
            self._close()
            if content.lstrip().startswith(AUTO_REPLY):
                self.session.steps.append(Step("context", timestamp=timestamp, title="Auto-reply nudge",
                                               text=content, collapsed=True))
            else:
                self.session.steps.append(Step("user", timestamp=timestamp, text=content,
                                               details=self._files(message)))
        else:
            self._close()
            self._assistant(message, content, timestamp)

    def _time(self, timestamp: Any) -> None:
        # Chained prompts are stamped at startup, so the file is not in time order.
        if timestamp is None:
            return
        s = self.session
        s.started_at = timestamp if s.started_at is None else min(s.started_at, timestamp)
        s.ended_at = timestamp if s.ended_at is None else max(s.ended_at, timestamp)

    @staticmethod
    def _files(message: dict[str, Any]) -> list[Detail]:
        files = message.get("files")
        if isinstance(files, list) and files:
            return [Detail("Attached files", "\n".join(str(f) for f in files))]
        return []

    def _assistant(self, message: dict[str, Any], content: str, timestamp: Any) -> None:
        metadata = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
        thinking, text = split_thinking(content)
        parsed = parse_calls(text, legacy_shell=timestamp is not None and timestamp.year < 2024)
        step = Step("assistant", timestamp=timestamp, text=strip_calls(text, parsed), thinking=thinking,
                    details=self._files(message))
        model = metadata.get("model")
        step.model = model if isinstance(model, str) and model else None
        step.usage = usage_from(metadata)
        cost = metadata.get("cost")
        if isinstance(cost, (int, float)) and not isinstance(cost, bool):
            step.cost = Cost(float(cost), "log")  # absent = unknown (gptme omits a zero/unpriced cost)
        timings = metadata.get("timings") if isinstance(metadata.get("timings"), dict) else {}
        spent = [timings.get(k) for k in ("ttft_ms", "gen_ms") if isinstance(timings.get(k), (int, float))]
        if spent:
            step.duration_s = sum(spent) / 1000
        by_tool = timings.get("tool_ms_by_name") if isinstance(timings.get("tool_ms_by_name"), dict) else {}
        for one in parsed:
            call = to_tool_call(one)
            ms = by_tool.get(call.name)
            # Timings are per tool name: only a lone call of that tool can own them.
            if isinstance(ms, (int, float)) and sum(p.tool == one.tool for p in parsed) == 1:
                call.duration_s = ms / 1000
            step.tool_calls.append(call)
            self.group.append(_Pending(call, one))
        self.step = step
        self.session.steps.append(step)

    def _system(self, message: dict[str, Any], content: str, timestamp: Any) -> None:
        title = context_title(message, content)
        if title is not None:
            if self.session.agent_version is None and (match := _VERSION.match(content.lstrip())):
                self.session.agent_version = match.group(1).rstrip(".,")
            if self.session.cwd is None and (match := _WORKDIR.search(content)):
                self.session.cwd = match.group(1).strip()
            self.session.steps.append(Step("context", timestamp=timestamp, title=title, text=content,
                                           collapsed=True))
            return
        info = classify(content, message.get("metadata"))
        call_id = message.get("call_id") if isinstance(message.get("call_id"), str) else None
        target = self._match(info, call_id)
        plain = call_id is None and info.tool is None and not info.is_error
        if target is not None:
            self._record(target, content, info)
        elif plain and self.last is not None:
            # A second message from the call that just answered (e.g. gh's "Waiting for checks").
            self._record(self.last, content, info)
        elif plain:
            # Output of a user command (/tokens, /log...) or a notice: nothing marks it as a result.
            self.session.steps.append(Step("event", timestamp=timestamp, title="System message", text=content))
        else:
            self._orphan(content, info, call_id, timestamp)

    def _match(self, info: ResultInfo, call_id: str | None) -> _Pending | None:
        """The call this result answers: by id, else by what it names, else the first open one.

        Content first means a call whose result never came does not steal the
        next call's result (no shifting); position is only for results that
        name nothing (errors, "Task complete"-like texts of unknown tools)."""
        if call_id is not None:
            by_id = next((p for p in self.group if p.call.id == call_id), None)
            if by_id is not None or any(p.call.id for p in self.group):
                return by_id  # an id that matches nothing is an orphan, not a positional guess
        open_calls = [p for p in self.group if not p.paired]
        if info.tool is not None:
            same = [p for p in open_calls if p.call.name == info.tool]
            if info.key is not None:
                keyed = [p for p in same if self._key_matches(p, info)]
                if keyed:
                    return keyed[0]
            return same[0] if same else None
        return open_calls[0] if open_calls else None

    @staticmethod
    def _key_matches(pending: _Pending, info: ResultInfo) -> bool:
        if info.tool == "shell":
            return command_matches(pending.parsed.code, info.key)
        return path_matches(pending.parsed.path, info.key)

    def _record(self, pending: _Pending, content: str, info: ResultInfo) -> None:
        call = pending.call
        call.output = content if call.output is None else f"{call.output}\n\n{content}"
        call.is_error = call.is_error or info.is_error
        if call.exit_code is None:
            call.exit_code = info.exit_code
        pending.paired = True
        self.last = pending

    def _orphan(self, content: str, info: ResultInfo, call_id: str | None, timestamp: Any) -> None:
        """A result no call asked for stays visible, as a call marked orphan."""
        call = ToolCall(name=info.tool or "unknown", id=call_id, output=content, is_error=info.is_error,
                        exit_code=info.exit_code, orphan=True)
        if self.step is not None:
            self.step.tool_calls.append(call)
        else:
            self.session.steps.append(Step("event", timestamp=timestamp, title="Tool result without a call",
                                           tool_calls=[call]))

    def _close(self) -> None:
        """The assistant turn is over: unanswered calls are marked, edits worked out in order."""
        for pending in self.group:
            if not pending.paired:
                pending.call.missing_result = True
            if not pending.call.is_error:
                change = file_change(pending.parsed, pending.call.output or "", self.known)
                if change is not None:
                    pending.call.changes.append(change)
                    if pending.parsed.tool == "patch":
                        pending.call.code = None  # the diff says what the ORIGINAL/UPDATED block says: shown once
        self.group, self.step, self.last = [], None, None

    def finish(self) -> None:
        self._close()


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
        _build(session, messages)
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
        return list(iter_objects(path, session.problems, label))
    except OSError as exc:
        session.problems.append(_problem(f"unreadable ({exc})", label))
        return []


def _build(session: Session, messages: list[tuple[int, dict[str, Any]]]) -> None:
    builder = _Builder(session)
    for line, message in messages:
        builder.add(line, message)
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
    _build(fork, messages[shared:])
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
READER = GptmeReader()


def _companions(conversation: Path) -> tuple[Path, ...]:
    """The conversation folder's other files: config.toml is read; events.jsonl (a mirror of
    the conversation) and branches/ are claimed so that no other reader, and no warning about
    unrecognised files, takes them for sessions of their own."""
    if conversation.name != CONVERSATION:
        return ()
    folder = conversation.parent
    found = [folder / name for name in ("config.toml", "events.jsonl") if (folder / name).is_file()]
    branches = folder / "branches"
    if branches.is_dir():
        found.extend(sorted(branches.glob("*.jsonl")))
    return tuple(found)
