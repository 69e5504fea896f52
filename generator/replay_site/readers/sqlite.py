"""The reader kit for logs kept in SQLite (OpenCode, Goose, Crush, Hermes): opened read-only,
rows as dicts, JSON held in text columns, a store's sessions handed back with its own account."""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Problem, Session
from replay_site.readers import FileReader, SessionSource

SQLITE_MAGIC = b"SQLite format 3\x00"


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Read only. A database in WAL mode is read with its -wal file (the latest messages);
    when that cannot be (a read-only folder without the -shm file), as the main file holds it."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return connection
    except sqlite3.Error:
        return sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)


def rows(connection: sqlite3.Connection, table: str, order: str) -> list[dict[str, Any]]:
    """Every row of `table` (a name of the reader's own, never from the log) by `order`."""
    cursor = connection.execute(f"SELECT * FROM {table} ORDER BY {order}")
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor]


def tables(path: Path, *wanted: tuple[str, str]) -> list[list[dict[str, Any]]]:
    """The rows of each (table, order) wanted, from the database at `path` opened read-only;
    raises sqlite3.Error when it is not such a database."""
    connection = connect_read_only(path)
    try:
        return [rows(connection, table, order) for table, order in wanted]
    finally:
        connection.close()


def table_names(connection: sqlite3.Connection) -> set[str]:
    """The tables a database has (a store's older schemas lack some)."""
    return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def row_counts(connection: sqlite3.Connection, wanted: tuple[str, ...]) -> dict[str, int]:
    """How many rows each of the `wanted` tables (names of the reader's own) has, for those
    that exist and are not empty: bookkeeping a reader counts and does not show."""
    present = table_names(connection)
    found = {table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in wanted if table in present}
    return {table: number for table, number in found.items() if number}


def with_wal(path: Path) -> tuple[Path, ...]:
    """A database's -wal file, read with it, when there is one."""
    wal = path.with_name(path.name + "-wal")
    return (wal,) if wal.is_file() else ()


class DatabaseReader(FileReader):
    """A reader of an agent that keeps all its sessions in one database file: each database
    it detects is one source, read with its -wal file."""

    suffixes = (".db",)

    def group(self, found: dict[Path, Any], root: Path) -> Iterator[SessionSource]:
        for path in sorted(found):
            yield SessionSource(self.name, path, root, with_wal(path))


def json_column(value: Any) -> Any:
    """The JSON a text column holds, or None when it holds none (or is not text)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return None


def by_session(found: list[dict[str, Any]], key: str = "session_id") -> dict[Any, list[dict[str, Any]]]:
    """Rows grouped by the session they belong to, in their order."""
    grouped: dict[Any, list[dict[str, Any]]] = {}
    for row in found:
        grouped.setdefault(row.get(key), []).append(row)
    return grouped


def stray_rows(left: dict[Any, list[dict[str, Any]]], label: str) -> list[Problem]:
    """A warning for the messages of each session the database does not hold (rows a reader
    took out of `left` as it read their sessions are not in it)."""
    return [Problem("warning", f"{len(left[ident])} message(s) of session {ident!r}, which is not in the database, skipped", label)
            for ident in sorted(left, key=str)]


def store_sessions(tops: list[Session], problems: list[Problem], side: dict[str, int], empty: Session) -> list[Session]:
    """The top sessions of one store: the store's own problems and its bookkeeping tables' rows
    go on the first, or on `empty` (standing for the store) when it holds no session."""
    holder = tops[0] if tops else empty
    for table, number in side.items():
        holder.count_record(table, "not_shown", number)
    holder.problems[:0] = problems
    return tops or [holder]
