"""Goose: `<data>/goose/sessions/sessions.db` (SQLite since Goose 1.10, late 2025), and before
it `<data>/goose/sessions/<name>.jsonl` (a line of session metadata, then a message a line).
<data> is $XDG_DATA_HOME (~/.local/share), or $GOOSE_PATH_ROOT/data when that is set.
messages.py reads the messages; the tables are `sessions` (a column a field, the running
token totals among them) and `messages` (`role`, `content_json`, `created_timestamp`).
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Fact, Problem, Session, Step, Usage
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.fields import count, first_request, mapping, string, user_prompts
from replay_site.readers.files import Head, moved_folder, plain_name
from replay_site.readers.goose.messages import Builder
from replay_site.readers.jsonl import iter_objects, kind_of
from replay_site.readers.sqlite import SQLITE_MAGIC, tables
from replay_site.readers.timestamps import parse_time

DATABASE = "sessions.db"
# Content no other SQLite database of a coding agent holds: the messages table's column.
MARKER = b"content_json"


def _is_metadata(first: dict[str, Any] | None) -> bool:
    """The first line of a legacy session file: Goose's session metadata, no message."""
    return isinstance(first, dict) and "working_dir" in first and "role" not in first and kind_of(first) is None \
        and any(key in first for key in ("description", "message_count", "total_tokens", "accumulated_total_tokens"))


class GooseReader(FileReader):
    name = "goose"
    label = "Goose"
    env_vars = ("GOOSE_PATH_ROOT", "XDG_DATA_HOME")
    suffixes = (".db",)

    def default_dirs(self) -> list[Path]:
        root = os.environ.get("GOOSE_PATH_ROOT")
        if root:
            return [Path(root).expanduser() / "data" / "sessions"]
        return [moved_folder("XDG_DATA_HOME", Path.home() / ".local" / "share") / "goose" / "sessions"]

    def detect(self, path: Path, head: Head) -> str | None:
        if path.suffix == ".db":
            named = path.name == DATABASE or head.named
            return "db" if named and head.data.startswith(SQLITE_MAGIC) and MARKER in head.data else None
        if plain_name(path).suffix == ".jsonl" or head.named:
            return "jsonl" if _is_metadata(head.first_object()) else None
        return None

    def group(self, found: dict[Path, str], root: Path) -> Iterator[SessionSource]:
        for path in sorted(found):
            wal = path.with_name(path.name + "-wal")
            yield SessionSource(self.name, path, root, (wal,) if found[path] == "db" and wal.is_file() else ())

    def read_sessions(self, source: SessionSource) -> list[Session]:
        if source.path.suffix == ".db":
            return _from_database(source)
        return [_from_file(source)]


READER = GooseReader()


def _session(info: dict[str, Any], ident: str, label: str) -> Session:
    session = Session(id=ident, format=READER.name, source=label)
    session.cwd = string(info.get("working_dir"))
    session.started_at, session.ended_at = parse_time(info.get("created_at")), parse_time(info.get("updated_at"))
    kind = string(info.get("session_type"))
    if kind and kind != "user":
        session.facts.append(Fact("Goose session type", kind))
    return session


def _finish(session: Session, info: dict[str, Any], builder: Builder) -> Session:
    """The session's token totals (Goose keeps no figure per message) as one step, then the title."""
    builder.finish()
    usage = Usage(input=count(info.get("accumulated_input_tokens")), output=count(info.get("accumulated_output_tokens")))
    if usage:
        session.steps.append(Step("event", model=builder.model, usage=usage, collapsed=True,
                                  title="Tokens of the whole session (Goose keeps only its totals)"))
    name = string(info.get("name")) or string(info.get("description"))
    session.title = name or first_request(user_prompts(session.steps)) or session.id
    session.number_steps()
    return session


def _model(info: dict[str, Any]) -> str | None:
    config = info.get("model_config_json")
    try:
        config = orjson.loads(config) if isinstance(config, (str, bytes)) else config
    except orjson.JSONDecodeError:
        return None
    return string(mapping(config).get("model_name"))


def _from_database(source: SessionSource) -> list[Session]:
    label = source.rel
    try:
        sessions, messages = tables(source.path, ("sessions", "created_at, id"), ("messages", "session_id, created_timestamp, id"))
    except sqlite3.Error as exc:
        session = Session(id=source.path.name, format=READER.name, source=label, title=source.path.name)
        session.problems.append(Problem("skipped_file", f"not a Goose database ({exc})", label))
        return [session]
    by_session: dict[Any, list[dict[str, Any]]] = {}
    for row in messages:
        by_session.setdefault(row.get("session_id"), []).append(row)
    found = []
    for info in sessions:
        session = _session(info, str(info.get("id")), label)
        builder = Builder(session, _model(info))
        session.count_record("session", "not_shown")
        for row in by_session.pop(info.get("id"), []):
            where = f"{label}: message {row.get('id')}"
            try:
                content = orjson.loads(row["content_json"]) if isinstance(row.get("content_json"), (str, bytes)) else None
            except orjson.JSONDecodeError:
                content = None
            if not isinstance(content, list):
                session.problems.append(Problem("bad_line", "its content_json is not a JSON list, skipped", where))
                continue
            builder.add({"role": row.get("role"), "created": row.get("created_timestamp"), "content": content}, where)
        found.append(_finish(session, info, builder))
    if found and by_session:
        lost = sum(map(len, by_session.values()))
        found[0].problems.append(Problem("warning", f"{lost} message(s) of sessions not in the database, skipped", label))
    return found


def _from_file(source: SessionSource) -> Session:
    label = source.label(source.path)
    info: dict[str, Any] = {}
    session = _session({}, plain_name(source.path).stem, label)
    builder = Builder(session, None)
    try:
        for line, value in iter_objects(source.path, session.problems, label):
            if line == 1 and _is_metadata(value):
                info = value
                session.count_record("session metadata", "not_shown")
                continue
            builder.add(value, f"{label}:{line}")
    except OSError as exc:
        session.warn("warning", f"unreadable ({exc})")
    session.cwd = string(info.get("working_dir"))
    return _finish(session, info, builder)
