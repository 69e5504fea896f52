"""Hermes Agent -> Sessions.

Hermes keeps every session (CLI, TUI, gateway platforms, cron, subagents) in
`<Hermes home>/state.db` (SQLite): the home is `$HERMES_HOME`, else `~/.hermes` (with
`$HERMES_DATA_DIR_SUFFIX`), and each named profile has its own under `profiles/<name>/`.
Its JSON shapes (an export, the snapshots) are read too (exports.py). Tables read: `sessions` (id, source, model, parent_session_id, title, cwd, git_branch,
started_at / ended_at in epoch seconds, end_reason, the session's token and cost sums),
`messages` (messages.py) and, since mid-2026, `session_model_usage` (those sums by model and
task). Hermes keeps no tokens per response: each session shows its sums on one step per
model (or one for the session), counted once. A session's `parent_session_id` names the
session it was delegated from (a subagent, source "subagent") or that it continues (after a
compression, a /branch or a reset: read as a fork).
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from replay_site.model import Cost, Fact, Problem, Session, Step, Usage
from replay_site.readers import SessionSource
from replay_site.readers.fields import count, first_request, number, string, user_prompts
from replay_site.readers.files import Head
from replay_site.readers.hermes import exports
from replay_site.readers.hermes.messages import Builder
from replay_site.readers.sqlite import (
    SQLITE_MAGIC,
    DatabaseReader,
    by_session,
    connect_read_only,
    row_counts,
    rows,
    store_sessions,
    stray_rows,
    table_names,
    with_wal,
)
from replay_site.readers.timestamps import parse_time

DATABASE = "state.db"
# Columns of Hermes's sessions table no other agent's store has.
MARKERS = (b"tool_call_count", b"end_reason", b"parent_session_id")
SUBAGENT_TOOLS = ("delegate_task",)
SIDE_TABLES = ("state_meta", "schema_version", "system_prompts")


class HermesReader(DatabaseReader):
    name = "hermes"
    label = "Hermes Agent"
    env_vars = ("HERMES_HOME", "HERMES_DATA_DIR_SUFFIX", "HOME")

    def default_dirs(self) -> list[Path]:
        """`get_hermes_home()` (its profiles are folders inside it)."""
        moved = os.environ.get("HERMES_HOME", "").strip()
        suffix = os.environ.get("HERMES_DATA_DIR_SUFFIX", "")
        home = Path.home()
        return [Path(moved).expanduser() if moved else home / (".hermes" + suffix)]

    def detect(self, path: Path, head: Head) -> str | None:
        """"db", or the JSON shape (exports.py) of a file of sessions."""
        if not head.data.startswith(SQLITE_MAGIC):
            return exports.sniff(path, head)
        if not all(marker in head.data for marker in MARKERS):
            return None
        return "db" if path.name == DATABASE or head.named else None

    def group(self, found: dict[Path, str], root: Path) -> Iterator[SessionSource]:
        """A database with the snapshots in its home's sessions/ (the same sessions, mostly);
        other snapshots and exports alone."""
        databases = {path for path, kind in found.items() if kind == "db"}
        beside: dict[Path, list[Path]] = {path: [] for path in databases}
        for path, kind in sorted(found.items()):
            home_database = path.parent.parent / DATABASE
            if kind == "snapshot" and home_database in databases:
                beside[home_database].append(path)
            elif kind != "db":
                yield SessionSource(self.name, path, root)
        for path in sorted(databases):
            yield SessionSource(self.name, path, root, with_wal(path) + tuple(beside[path]))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        empty = Session(id=source.path.stem, format=self.name, source=source.rel, title=source.path.name)
        if source.path.suffix == ".json":
            return [exports.snapshot_session(source.path, source.rel, self.name)]
        if source.path.suffix != ".db":
            sessions, messages, problems = exports.export_rows(source.path, source.rel)
            read = {row.get("id"): _session(row, messages.get(row.get("id"), []), None, source) for row in sessions}
            return store_sessions(_nest(read), problems, {}, empty)
        try:
            sessions, messages, usage, side = _tables(source.path)
        except sqlite3.Error as exc:
            return store_sessions([], [Problem("skipped_file", f"not a Hermes state database ({exc})", source.rel)], {}, empty)
        left, usage_of = by_session(messages), by_session(usage)
        read = {row.get("id"): _session(row, left.pop(row.get("id"), []), usage_of.get(row.get("id")), source) for row in sessions}
        tops = _nest(read)
        for path in (path for path in source.related if path.suffix == ".json"):
            snapshot = exports.snapshot_session(path, source.label(path), self.name)
            if snapshot.id in read:  # the database's own session again
                side["snapshot of a session in state.db"] = side.get("snapshot of a session in state.db", 0) + 1
            else:
                tops.append(snapshot)
        return store_sessions(tops, stray_rows(left, source.rel), side, empty)


READER = HermesReader()


def _tables(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], dict[str, int]]:
    connection = connect_read_only(path)
    try:
        present = table_names(connection)
        sessions = rows(connection, "sessions", "started_at, id")
        messages = rows(connection, "messages", "session_id, id")
        usage = rows(connection, "session_model_usage", "session_id, first_seen, model, task") if "session_model_usage" in present else []
        side = row_counts(connection, SIDE_TABLES)
        return sessions, messages, usage, side
    finally:
        connection.close()


def _session(row: dict[str, Any], messages: list[dict[str, Any]], usage: list[dict[str, Any]] | None,
             source: SessionSource) -> Session:
    session = Session(id=str(row.get("id")), format=READER.name, source=source.rel)
    session.count_record("session", "not_shown")
    if string(row.get("model")):
        session.declared_models.append(row["model"])
    session.parent_id = string(row.get("parent_session_id"))
    session.cwd, session.git_branch = string(row.get("cwd")), string(row.get("git_branch"))
    session.started_at, session.ended_at = parse_time(row.get("started_at")), parse_time(row.get("ended_at"))
    session.session_kind = string(row.get("source"))
    Builder(session, source.rel).build(messages)
    for figures in usage if usage else [row]:
        step = _figures(figures, session)
        if step is not None:
            session.count_record("session_model_usage" if usage else "session totals", "shown")
            session.steps.append(step)
    reason = string(row.get("end_reason"))
    if reason:
        session.facts.append(Fact("Ended", reason))
    session.title = string(row.get("title")) or first_request(user_prompts(session.steps)) or session.id
    session.number_steps()
    return session


def _figures(row: dict[str, Any], session: Session) -> Step | None:
    """A usage sum as one step: Hermes's input is already the uncached part, its output holds
    the reasoning. A cost is logged when the provider reported one (`actual_cost_usd`)."""
    usage = Usage(input=count(row.get("input_tokens")), output=count(row.get("output_tokens")),
                  cache_read=count(row.get("cache_read_tokens")), cache_write_5m=count(row.get("cache_write_tokens")),
                  reasoning=count(row.get("reasoning_tokens")))
    actual = number(row.get("actual_cost_usd"))
    if not usage and not actual:
        return None
    model = string(row.get("model")) or (session.declared_models[0] if session.declared_models else None)
    task = string(row.get("task"))
    calls = count(row.get("api_call_count"))
    title = f"Tokens of {calls} model call(s)" + (f" for {task}" if task else "") + " (Hermes keeps only their sums)"
    return Step("event", model=model, usage=usage or None, collapsed=True, title=title,
                cost=Cost(actual, "log") if actual and actual > 0 else None, timestamp=parse_time(row.get("last_seen")))


def _nest(read: dict[Any, Session]) -> list[Session]:
    tops = []
    for session in read.values():
        parent = read.get(session.parent_id) if session.parent_id else None
        if parent is not None and parent is not session:
            session.relation = "subagent" if session.session_kind == "subagent" else "fork"
            parent.children.append(session)
        else:
            session.parent_id = None
            tops.append(session)
    for session in read.values():
        _link(session)
    return tops


def _link(session: Session) -> None:
    """Delegations name no session: the delegate_task calls are linked to the subagents in
    order when there are as many of each, else the subagents are listed as a fact."""
    subagents = [child for child in session.children if child.relation == "subagent"]
    calls = [(step, call) for step in session.steps for call in step.tool_calls if call.name in SUBAGENT_TOOLS]
    if subagents and len(calls) == len(subagents):
        for (step, call), child in zip(calls, sorted(subagents, key=lambda child: (child.started_at is None, child.started_at, child.id))):
            call.child_session_id = child.id
            call.missing_result = False
            step.child_session_ids.append(child.id)
    elif subagents:
        session.facts.append(Fact("Subagents not named by a call", ", ".join(child.id for child in subagents)))

