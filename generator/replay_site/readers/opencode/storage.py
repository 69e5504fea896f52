"""What OpenCode keeps of a session, from either of its stores, as plain records.

- `opencode.db` (SQLite, since OpenCode moved off files in 2026; `opencode-<channel>.db` for
  other release channels): tables `session` (a column a field), `message` and `part` (the
  message's or part's JSON in `data`, its ids in columns).
- `storage/` (JSON files, before): `session/<projectID>/<sessionID>.json`,
  `message/<sessionID>/<messageID>.json`, `part/<messageID>/<partID>.json`, each rewritten
  in place as the message streams, so each id is one record.
Both give a session's info, then its messages each with its parts, ids in order (OpenCode's
message and part ids ascend with time).
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Problem
from replay_site.readers.fields import mapping, string
from replay_site.readers.jsonl import load_json
from replay_site.readers.sqlite import tables


@dataclass
class Message:
    info: dict[str, Any]
    parts: list[dict[str, Any]] = field(default_factory=list)
    where: str = ""  # how a warning names it


@dataclass
class Stored:
    """One session as stored: its info, its messages, and the problems met reading them."""

    info: dict[str, Any]
    messages: list[Message] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    where: str = ""

    @property
    def id(self) -> str:
        return string(self.info.get("id")) or self.where

    @property
    def parent(self) -> str | None:
        return string(self.info.get("parentID"))


def _order(messages: list[Message]) -> list[Message]:
    def key(message: Message) -> tuple[float, str]:
        created = mapping(message.info.get("time")).get("created")
        return (created if isinstance(created, (int, float)) and not isinstance(created, bool) else 0.0,
                string(message.info.get("id")) or "")
    for message in messages:
        message.parts.sort(key=lambda part: string(part.get("id")) or "")
    return sorted(messages, key=key)


# --- storage/ (JSON files) -------------------------------------------------------------------


def storage_of(session_file: Path) -> Path:
    """storage/ from storage/session/<projectID>/<sessionID>.json."""
    return session_file.parent.parent.parent


def message_files(session_file: Path) -> list[Path]:
    folder = storage_of(session_file) / "message" / session_file.stem
    return sorted(path for path in folder.glob("*.json") if path.is_file()) if folder.is_dir() else []


def part_files(message_file: Path) -> list[Path]:
    folder = storage_of(message_file) / "part" / message_file.stem
    return sorted(path for path in folder.glob("*.json") if path.is_file()) if folder.is_dir() else []


def from_files(session_file: Path, label) -> Stored:
    """One session of storage/: `label(path)` names a file in warnings."""
    problems: list[Problem] = []
    info = load_json(session_file, problems, label(session_file)) or {}
    stored = Stored(info, problems=problems, where=label(session_file))
    for path in message_files(session_file):
        message = load_json(path, problems, label(path))
        if message is None:
            continue
        parts = [part for part in (load_json(each, problems, label(each)) for each in part_files(path)) if part is not None]
        stored.messages.append(Message(message, parts, label(path)))
    stored.messages = _order(stored.messages)
    return stored


# --- opencode.db (SQLite) --------------------------------------------------------------------


def _data(row: dict[str, Any], table: str, problems: list[Problem], label: str) -> dict[str, Any] | None:
    """A row's JSON `data` with its id columns put back (OpenCode stores them apart)."""
    raw = row.get("data")
    try:
        value = orjson.loads(raw) if isinstance(raw, (str, bytes)) else None
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        problems.append(Problem("bad_line", f"{table} {row.get('id')!r}: its data is not a JSON object, skipped", label))
        return None
    value["id"] = row.get("id")
    return value


def session_info(row: dict[str, Any]) -> dict[str, Any]:
    """The session table's columns in the shape of a storage/ session file."""
    return {
        "id": row.get("id"), "parentID": row.get("parent_id"), "projectID": row.get("project_id"),
        "directory": row.get("directory"), "title": row.get("title"), "version": row.get("version"),
        "time": {"created": row.get("time_created"), "updated": row.get("time_updated")},
    }


def from_database(path: Path, label: str) -> tuple[list[Stored], list[Problem]]:
    """Every session of one database; a database OpenCode did not write is a warning."""
    problems: list[Problem] = []
    try:
        sessions, messages, parts = tables(path, ("session", "id"), ("message", "session_id, time_created, id"),
                                           ("part", "message_id, id"))
    except sqlite3.Error as exc:
        problems.append(Problem("skipped_file", f"not an OpenCode database ({exc})", label))
        return [], problems
    stored = {row.get("id"): Stored(session_info(row), where=label) for row in sessions}
    by_message: dict[Any, list[dict[str, Any]]] = {}
    for row in parts:
        part = _data(row, "part", problems, label)
        if part is not None:
            by_message.setdefault(row.get("message_id"), []).append(part)
    for row in messages:
        owner = stored.get(row.get("session_id"))
        info = _data(row, "message", owner.problems if owner else problems, label)
        if info is None:
            continue
        if owner is None:
            problems.append(Problem("warning", f"message {row.get('id')!r} of a session not in the database, skipped", label))
            continue
        owner.messages.append(Message(info, by_message.get(row.get("id"), []), f"{label}: message {row.get('id')}"))
    known = {row.get("id") for row in messages}
    for message_id in sorted((key for key in by_message if key not in known), key=str):
        problems.append(Problem("warning", f"{len(by_message[message_id])} part(s) of message {message_id!r}, "
                                           "which is not in the database, skipped", label))
    for each in stored.values():
        each.messages = _order(each.messages)
    return [stored[key] for key in sorted(stored, key=str)], problems
