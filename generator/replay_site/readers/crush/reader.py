"""Crush (charmbracelet/crush) -> Sessions.

Crush keeps a project's sessions in `<project>/.crush/crush.db` (its `data_directory`, found
upwards from the working folder), SQLite: `sessions` (id, parent_session_id, title, the
last response's prompt_tokens and completion_tokens, the running cost, timestamps in
seconds), `messages` (role, parts JSON, model, provider, is_summary_message), `files` (each
file's versions, for undo) and since 0.35 (January 2026) `read_files`. Every project it ran
in is listed in `projects.json` of its global data folder (`$CRUSH_GLOBAL_DATA`, else
`$XDG_DATA_HOME/crush`, else `~/.local/share/crush`), which `default_dirs` reads.

Crush keeps no tokens per response: a session's token columns are overwritten by each
response, and its cost is a running sum to which each subagent's cost is added when it ends.
So a session shows its own cost (its total less its children's) on one step, and its last
response's token counts as a fact. Subagents (the agent and agentic_fetch tools) are sessions
`<message id>$$<tool call id>` whose parent is the calling session (older builds ran the
title model in a session `title-<id>`, also a child).
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Cost, Fact, Problem, Session, Step
from replay_site.readers import SessionSource
from replay_site.readers.crush.parts import SUBAGENT_TOOLS, Builder
from replay_site.readers.fields import count, first_request, listed, mapping, number, string, user_prompts
from replay_site.readers.files import Head
from replay_site.readers.sqlite import (
    SQLITE_MAGIC,
    DatabaseReader,
    by_session,
    connect_read_only,
    row_counts,
    rows,
    store_sessions,
    stray_rows,
)
from replay_site.readers.timestamps import parse_time

DATABASE = "crush.db"
# Columns only Crush's schema has (its messages' parts, a summary message flag).
MARKERS = (b"is_summary_message", b"summary_message_id")
DEFAULT_TITLES = ("Untitled Session", "New Session", "New Agent Session")
# Bookkeeping tables: counted, not shown.
SIDE_TABLES = ("files", "read_files")


def global_folder() -> Path:
    """Crush's `GlobalConfigData()` folder."""
    moved = os.environ.get("CRUSH_GLOBAL_DATA")
    data_home = os.environ.get("XDG_DATA_HOME")
    home = Path.home()
    if moved:
        return Path(moved).expanduser()
    return (Path(data_home).expanduser() if data_home else home / ".local" / "share") / "crush"


class CrushReader(DatabaseReader):
    name = "crush"
    label = "Crush"
    env_vars = ("CRUSH_GLOBAL_DATA", "XDG_DATA_HOME", "HOME")

    def default_dirs(self) -> list[Path]:
        """The global data folder, and the data folder of every project Crush has registered
        in its projects.json."""
        folder = global_folder()
        folders = [folder]
        try:
            listed_projects = orjson.loads((folder / "projects.json").read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return folders
        for project in listed(mapping(listed_projects).get("projects")):
            data = string(mapping(project).get("data_dir"))
            if data and Path(data).is_absolute() and Path(data) not in folders:
                folders.append(Path(data))
        return folders

    def detect(self, path: Path, head: Head) -> str | None:
        if not head.data.startswith(SQLITE_MAGIC):
            return None
        by_name = path.name == DATABASE
        by_content = all(marker in head.data for marker in MARKERS) and b"parent_session_id" in head.data
        return "db" if by_content and (by_name or head.named) else None

    def read_sessions(self, source: SessionSource) -> list[Session]:
        empty = Session(id=source.path.stem, format=self.name, source=source.rel, title=source.path.name)
        try:
            sessions, messages, side = _tables(source.path)
        except sqlite3.Error as exc:
            return store_sessions([], [Problem("skipped_file", f"not a Crush database ({exc})", source.rel)], {}, empty)
        left = by_session(messages)
        read = {row.get("id"): _session(row, left.pop(row.get("id"), []), source) for row in sessions}
        tops = _nest(read, {row.get("id"): row for row in sessions})
        return store_sessions(tops, stray_rows(left, source.rel), side, empty)


READER = CrushReader()


def _tables(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, int]]:
    """The sessions and messages, and the number of rows of each bookkeeping table there is."""
    connection = connect_read_only(path)
    try:
        sessions = rows(connection, "sessions", "created_at, id")
        messages = rows(connection, "messages", "session_id, created_at, rowid")
        side = row_counts(connection, SIDE_TABLES)
        return sessions, messages, side
    finally:
        connection.close()


def _session(row: dict[str, Any], messages: list[dict[str, Any]], source: SessionSource) -> Session:
    session = Session(id=str(row.get("id")), format=READER.name, source=source.rel)
    session.count_record("session", "not_shown")
    session.parent_id = string(row.get("parent_session_id"))
    session.started_at, session.ended_at = parse_time(row.get("created_at")), parse_time(row.get("updated_at"))
    builder = Builder(session)
    builder.build(messages, source.rel)
    if builder.last_finish == "canceled":
        session.outcome = "interrupted"
    title = string(row.get("title"))
    session.title = (title if title and title not in DEFAULT_TITLES else None) or first_request(user_prompts(session.steps)) or session.id
    prompt, completion = count(row.get("prompt_tokens")), count(row.get("completion_tokens"))
    if prompt or completion:
        session.facts.append(Fact("Tokens of the last response (Crush keeps no others)", f"{prompt:,} prompt, {completion:,} completion"))
    return session


def _nest(read: dict[Any, Session], rows_by_id: dict[Any, dict[str, Any]]) -> list[Session]:
    """Children under their parents, subagent calls linked, and each session's own cost (its
    running total less what its subagents added to it when they ended) on one step."""
    tops = []
    for ident, session in read.items():
        parent = read.get(session.parent_id) if session.parent_id else None
        if parent is not None and parent is not session:
            parent.children.append(session)
        else:
            session.parent_id = None
            tops.append(session)
    for ident, session in read.items():
        _link(session)
        total = number(rows_by_id[ident].get("cost")) or 0.0
        own = total - sum(number(rows_by_id[child.id].get("cost")) or 0.0 for child in session.children if "$$" in child.id)
        if own > 1e-12:
            model = next((step.model for step in reversed(session.steps) if step.model), None)
            session.steps.append(Step("event", collapsed=True, cost=Cost(round(own, 12), "log"), model=model,
                                      title="Cost of the whole session (Crush keeps no cost per response)"))
        session.number_steps()
    return tops


def _link(session: Session) -> None:
    """A subagent call names its session: `<its message id>$$<its call id>`."""
    ids = {child.id for child in session.children}
    for step in session.steps:
        for call in step.tool_calls:
            if call.name in SUBAGENT_TOOLS and call.id:
                child = next((ident for ident in ids if ident.endswith(f"$${call.id}")), None)
                if child is not None:
                    call.child_session_id = child
                    call.missing_result = False
                    step.child_session_ids.append(child)
