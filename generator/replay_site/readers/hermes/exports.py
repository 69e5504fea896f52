"""Hermes sessions outside state.db, as JSON (`hermes_state_portability.py`, `run_agent.py`).

- `hermes sessions export` writes JSONL, one session a line: its sessions row with its
  `messages` (the same rows, `tool_calls` as a list);
- `<Hermes home>/sessions/session_<id>.json`, the snapshot the agent rewrites after each turn
  when `sessions.write_json_snapshots` is on (and did by default before state.db held the
  transcript): {session_id, model, platform, session_start, last_updated, system_prompt,
  tools, message_count, messages}, with no token figures. A snapshot of a session the
  state.db beside it holds is that session again: counted, not read twice.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from replay_site.model import Problem, Session
from replay_site.readers.fields import first_request, listed, string, user_prompts
from replay_site.readers.files import Head
from replay_site.readers.hermes.messages import Builder
from replay_site.readers.jsonl import iter_objects, load_json
from replay_site.readers.timestamps import utc_time

SNAPSHOT_HEAD = re.compile(rb'^\s*\{\s*"session_id"\s*:\s*"[^"]*"\s*,\s*"model"\s*:')
EXPORT_KEYS = ("id", "source", "started_at", "messages")


def sniff(path: Path, head: Head) -> str | None:
    """"snapshot" or "export" for a file of these shapes, from its head."""
    if path.suffix == ".json" and SNAPSHOT_HEAD.match(head.data[:4096]) and b'"messages"' in head.data:
        return "snapshot" if path.name.startswith("session_") or head.named else None
    first = head.first_object(1) if path.suffix == ".jsonl" or head.named else None
    if first is not None and all(key in first for key in EXPORT_KEYS) and isinstance(first["messages"], list):
        return "export"
    return None


def snapshot_session(path: Path, label: str, format_name: str) -> Session:
    """A snapshot (its times are the writer's naive local time, read as UTC)."""
    session = Session(id=path.stem.removeprefix("session_"), format=format_name, source=label)
    record = load_json(path, session.problems, label) or {}
    session.count_record("snapshot", "not_shown")
    session.id = string(record.get("session_id")) or session.id
    if string(record.get("model")):
        session.declared_models.append(record["model"])
    session.session_kind = string(record.get("platform"))
    session.started_at, session.ended_at = utc_time(record.get("session_start")), utc_time(record.get("last_updated"))
    Builder(session, label).build([message for message in listed(record.get("messages")) if isinstance(message, dict)])
    session.title = first_request(user_prompts(session.steps)) or session.id
    session.number_steps()
    return session


def export_rows(path: Path, label: str) -> tuple[list[dict[str, Any]], dict[Any, list[dict[str, Any]]], list[Problem]]:
    """An export's session rows, their messages by session id, and the bad lines."""
    problems: list[Problem] = []
    sessions, messages = [], {}
    for _line, record in iter_objects(path, problems, label):
        rows = [message for message in listed(record.pop("messages", None)) if isinstance(message, dict)]
        if "id" in record:
            sessions.append(record)
            messages[record["id"]] = rows
    return sessions, messages, problems
