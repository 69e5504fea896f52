"""Gemini CLI (google-gemini/gemini-cli) sessions -> Sessions.

ChatRecordingService keeps each session in `<GEMINI_CLI_HOME or ~>/.gemini/tmp/<project>/chats/`
(the project folder is a hash of the project's path, or since 2026 a short id from
projects.json). Two shapes:
- `session-<time>-<id8>.json` (2025): one ConversationRecord {sessionId, projectHash,
  startTime, lastUpdated, messages, summary?, kind?}, rewritten whole on every change;
- `session-<time>-<id8>.jsonl` (2026): the record's fields on the first line, then each message
  appended whenever it changes (the same `id` again, the last version is the message),
  `{"$set": {...}}` metadata updates (a `messages` array there replaces the history, e.g.
  masked outputs) and `{"$rewindTo": id}` (that message and the later ones taken back; shown
  folded, since they ran and were billed). A resumed .json session is migrated into a .jsonl
  of the same name: the pair is one session, read from the .jsonl.
Subagents record into `chats/<parent session id>/<session id>.jsonl` (kind "subagent"): they
are the parent's children, linked by the calls that name them (`agentId`).
Qwen Code's own session files look like Claude Code's, not like these (readers/qwen).
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay_site.model import Fact, Problem, Session
from replay_site.readers import FileReader, SessionSource, jsonl
from replay_site.readers.fields import first_request, listed, string, text, user_prompts
from replay_site.readers.files import Head, plain_name, read_head
from replay_site.readers.gemini.conversation import Entry, message_steps
from replay_site.readers.timestamps import utc_time

FORMAT = "gemini"
_LEGACY_HEAD = re.compile(rb'^\s*\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"projectHash"\s*:')
_MESSAGE_TYPES = ("user", "gemini", "info", "warning", "error")


@dataclass(frozen=True)
class Found:
    session_id: str
    subagent: bool
    lines: bool  # the JSONL shape


def is_header(obj: dict[str, Any]) -> bool:
    """The first line of a JSONL session (or a whole legacy record): its ids, no message fields."""
    return isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str) and "uuid" not in obj and "type" not in obj


def sniff_conversation(path: Path, head: Head) -> Found | None:
    """A Gemini-CLI-shaped session file (Gemini CLI's, or a fork's that kept its recorder), from its head."""
    suffix = plain_name(path).suffix
    if suffix == ".json" or (head.named and suffix != ".jsonl" and _LEGACY_HEAD.match(head.data[:4096])):
        match = _LEGACY_HEAD.match(head.data[:4096])
        if not match:
            return None
        ident = re.search(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"', head.data[:4096])
        subagent = re.search(rb'"kind"\s*:\s*"subagent"', head.data[:65536]) is not None
        return Found(ident.group(1).decode("utf-8", "replace") if ident else path.stem, subagent, False)
    if suffix != ".jsonl" and not head.named:
        return None
    first = head.first_object()
    if first is None or not is_header(first):
        return None
    following = head.objects()[1:4]
    if any(not _is_gemini_line(obj) for obj in following):
        return None
    return Found(first["sessionId"], first.get("kind") == "subagent", True)


def _is_gemini_line(obj: dict[str, Any]) -> bool:
    if "$set" in obj or "$rewindTo" in obj:
        return True
    return isinstance(obj.get("id"), str) and obj.get("type") in _MESSAGE_TYPES and "uuid" not in obj


def model_family(head: Head) -> bool:
    """Whether the head's model messages say "gemini" (Gemini CLI), not a fork's own type."""
    return b'"type":"qwen"' not in head.data and b'"type": "qwen"' not in head.data


class GeminiReader(FileReader):
    name = FORMAT
    label = "Gemini CLI"
    env_vars = ("GEMINI_CLI_HOME", "HOME")

    def default_dirs(self) -> list[Path]:
        # Gemini CLI's homedir(): $GEMINI_CLI_HOME, else the user's home
        return [Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()).expanduser() / ".gemini" / "tmp"]

    def detect(self, path: Path, head: Head) -> Found | None:
        found = sniff_conversation(path, head)
        if found is None or ".qwen" in path.parts or not model_family(head):
            return None  # Qwen Code's fork of the recorder: readers/qwen reads those
        return found

    def group(self, found: dict[Path, Found], root: Path) -> Iterator[SessionSource]:
        yield from group_sessions(self.name, found, root)

    def read_sessions(self, source: SessionSource) -> list[Session]:
        return read_family(source, FORMAT)


def group_sessions(format_name: str, found: dict[Path, Found], root: Path) -> Iterator[SessionSource]:
    """A main session with its subagents (in the folder named by its session id beside it) and
    the legacy .json copy of a migrated .jsonl."""
    mains = {path: item for path, item in sorted(found.items()) if not item.subagent}
    by_id: dict[tuple[Path, str], Path] = {}
    for path, item in mains.items():
        key = (path.parent, item.session_id)
        if key not in by_id or item.lines:  # the .jsonl is the migrated, newer copy
            by_id[key] = path
    related: dict[Path, list[Path]] = {path: [] for path in set(by_id.values())}
    loose: list[Path] = []
    for path, item in sorted(found.items()):
        main = by_id.get((path.parent.parent, path.parent.name)) if item.subagent else by_id.get((path.parent, item.session_id))
        if main is None:
            loose.append(path)
        elif main != path:
            related[main].append(path)
    for path in sorted(related):
        yield SessionSource(format_name, path, root, tuple(related[path]))
    for path in loose:  # a subagent without its parent here (or named alone)
        yield SessionSource(format_name, path, root)


def read_family(source: SessionSource, format_name: str) -> list[Session]:
    main = read_conversation(source.path, source.label(source.path), format_name)
    for path in source.related:
        other = read_conversation(path, source.label(path), format_name)
        if other.id == main.id and other.parent_id is None:
            # The .json a resumed session was migrated from: its messages are in the .jsonl.
            main.problems.append(_copy_note(source.label(path), source.label(source.path)))
            for kinds in other.records.values():
                for kind, lines in kinds.items():
                    main.count_record(kind, "not_shown", lines)
            continue
        other.parent_id = main.id
        main.children.append(other)
    _link_children(main)
    return [main]


def _copy_note(copy: str, kept: str) -> Problem:
    return Problem("warning", f"same session as {kept}, which it was migrated to: not read again", copy)


def _link_children(main: Session) -> None:
    ids = {child.id for child in main.children}
    linked = {call.child_session_id for step in main.steps for call in step.tool_calls if call.child_session_id in ids}
    for step in main.steps:
        for call in step.tool_calls:
            if call.child_session_id and call.child_session_id not in ids:
                call.child_session_id = None  # a subagent whose transcript is not here: its output says what it did
                call.missing_result = call.output is None
        step.child_session_ids = [ident for ident in step.child_session_ids if ident in ids]
    if len(linked) < len(ids):
        main.facts.append(Fact("Subagents not named by a call", ", ".join(sorted(ids - linked))))


def read_conversation(path: Path, label: str, format_name: str) -> Session:
    session = Session(id=plain_name(path).stem, format=format_name, source=label)
    if plain_name(path).suffix == ".jsonl" or _starts_with_header_line(path, session):
        meta, entries = _replay(path, session, label)
    else:
        meta, entries = _legacy(path, session, label)
    session.id = string(meta.get("sessionId")) or session.id
    session.steps = message_steps(session, entries)
    session.number_steps()
    session.started_at = utc_time(meta.get("startTime")) or next((s.timestamp for s in session.steps if s.timestamp), None)
    session.ended_at = utc_time(meta.get("lastUpdated")) or next((s.timestamp for s in reversed(session.steps) if s.timestamp), None)
    session.title = text(meta.get("summary")).strip() or first_request(user_prompts(session.steps)) or session.id
    if string(meta.get("projectHash")):
        session.facts.append(Fact("Project", meta["projectHash"]))
    directories = [folder for folder in listed(meta.get("directories")) if isinstance(folder, str)]
    if directories:
        session.cwd = directories[0]
    return session


def _starts_with_header_line(path: Path, session: Session) -> bool:
    """A file named otherwise on the command line: JSONL when its first line is a whole header."""
    try:
        first = read_head(path).first_object(1)
    except OSError:
        return False
    return first is not None and is_header(first)


def _legacy(path: Path, session: Session, label: str) -> tuple[dict[str, Any], list[Entry]]:
    record = jsonl.load_json(path, session.problems, label) or {}
    messages = record.get("messages")
    entries = []
    for message in messages if isinstance(messages, list) else ():
        if isinstance(message, dict):
            session.count_record(text(message.get("type"))[:40] or "(no type)")
            entries.append(Entry(None, message))
        else:
            session.warn("bad_line", "a message that is not an object, skipped")
    return record, entries


def _replay(path: Path, session: Session, label: str) -> tuple[dict[str, Any], list[Entry]]:
    """The JSONL log replayed as Gemini CLI loads it, keeping what it drops: a message's
    versions make one message; rewound messages stay, marked."""
    meta: dict[str, Any] = {}
    entries: dict[str, Entry] = {}
    live: list[str] = []  # the ids of the conversation as it now stands, in order
    order: list[Entry] = []
    for line, obj in jsonl.iter_objects(path, session.problems, label):
        if isinstance(obj.get("$rewindTo"), str):
            session.count_record("$rewindTo", "not_shown")
            cut = live.index(obj["$rewindTo"]) if obj["$rewindTo"] in live else 0
            for ident in live[cut:]:
                entries.pop(ident).rewound = True
            del live[cut:]
        elif isinstance(obj.get("id"), str):
            _version(session, obj, line, entries, live, order, count=True)
        elif isinstance(obj.get("$set"), dict):
            session.count_record("$set", "not_shown")
            update = dict(obj["$set"])
            for message in listed(update.pop("messages", None)):
                if isinstance(message, dict) and isinstance(message.get("id"), str):
                    _version(session, message, line, entries, live, order, count=False, merge=True)
            meta.update(update)
        elif is_header(obj):
            session.count_record("session header", "not_shown")
            meta.update(obj)
        else:
            session.count_record("(unknown record)", "unknown")
            session.warn("unknown_event", "a record of no kind Gemini CLI writes, not shown", line)
    return meta, order


def _version(session: Session, obj: dict[str, Any], line: int, entries: dict[str, Entry], live: list[str],
             order: list[Entry], count: bool, merge: bool = False) -> None:
    """One version of a message: the first makes its entry, a later one replaces its record."""
    ident = obj["id"]
    kind = text(obj.get("type"))[:40] or "(no type)"
    entry = entries.get(ident)
    if entry is None:
        entry = entries[ident] = Entry(line, obj)
        live.append(ident)
        order.append(entry)
        if count:
            session.count_record(kind)
        return
    entry.record = {**entry.record, **obj} if merge else obj
    if count:
        session.count_record(f"{kind} (rewritten)", "not_shown")


READER = GeminiReader()
