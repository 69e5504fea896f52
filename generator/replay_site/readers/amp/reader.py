"""Amp: `$XDG_DATA_HOME/amp/threads/T-<uuid>.json` (`~/.local/share/amp/threads`), one JSON
object per thread, kept by the CLI and the editor extensions alike (Amp also keeps the thread
on ampcode.com; the local file is what is read). thread.py reads its messages.

A thread handed off (`handoff`) or forked from another names it in `relationships`
(`{threadID, type, role}`, `role` being this thread's): a child thread found beside its
parent is read under it, as a fork (its own figures, not rolled up). Amp's subagents (the
`Task` tool) keep no thread file of their own that any public description names: their work
shows as the Task call's result.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import orjson

from replay_site.model import Session
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.amp.thread import Builder
from replay_site.readers.fields import first_request, listed, mapping, string, user_prompts
from replay_site.readers.files import Head, families, moved_folder, open_regular, plain_name
from replay_site.readers.jsonl import load_json
from replay_site.readers.timestamps import utc_time

# A thread opens with its `T-` id among its first keys, and has its creation time or messages.
_OPENING = re.compile(rb'^\s*\{')
_ID = re.compile(rb'"id"\s*:\s*"(T-[0-9A-Za-z-]{8,64})"')
_THREAD_KEY = re.compile(rb'"created"\s*:\s*\d|"messages"\s*:\s*\[')
_RELATIONSHIPS = re.compile(rb'"relationships"\s*:\s*(\[[^\[\]]*\])')
TAIL = 64 * 1024


def parent_in(relationships: Any) -> str | None:
    """The thread this one was handed off or forked from, as its `relationships` name it."""
    return next((string(item.get("threadID")) for item in listed(relationships) if isinstance(item, dict)
                 and item.get("role") == "child" and item.get("type") in ("handoff", "fork")), None)


def parent_named(data: bytes) -> str | None:
    """`parent_in` for the raw bytes of a thread (its head or its tail)."""
    found = _RELATIONSHIPS.search(data)
    if not found:
        return None
    try:
        return parent_in(orjson.loads(found.group(1)))
    except orjson.JSONDecodeError:
        return None


class AmpReader(FileReader):
    name = "amp"
    label = "Amp"
    env_vars = ("XDG_DATA_HOME", "HOME")

    def default_dirs(self) -> list[Path]:
        return [moved_folder("XDG_DATA_HOME", Path.home() / ".local" / "share") / "amp" / "threads"]

    def detect(self, path: Path, head: Head) -> dict[str, Any] | None:
        if plain_name(path).suffix != ".json" and not head.named:
            return None
        start = head.data[:4096]
        found = _ID.search(start)
        if not _OPENING.match(start) or not found or not _THREAD_KEY.search(head.data):
            return None
        return {"id": found.group(1).decode(), "parent": parent_named(head.data), "whole": head.complete}

    def group(self, found: dict[Path, dict[str, Any]], root: Path) -> Iterator[SessionSource]:
        """Each thread with the threads handed off or forked from it."""
        by_id = {said["id"]: path for path, said in sorted(found.items())}
        parent_of = {}
        for path, said in found.items():
            named = said["parent"] if said["whole"] or said["parent"] else _tail_parent(path)
            if named in by_id and by_id[named] != path:
                parent_of[path] = by_id[named]
        for main, members in sorted(families(found, parent_of).items()):
            yield SessionSource(self.name, main, root, tuple(p for p in members if p != main))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        sessions = {path: _read(path, source) for path in (source.path, *source.related)}
        main = sessions[source.path]
        by_id = {session.id: session for session in sessions.values()}
        for path in source.related:
            child = sessions[path]
            holder = by_id.get(child.parent_id or "") or main
            child.parent_id, child.relation = holder.id, "fork"
            holder.children.append(child)
        return [main]


READER = AmpReader()


def _tail_parent(path: Path) -> str | None:
    """The relationships of a thread too long for its head: they follow its messages."""
    try:
        with open_regular(path) as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - TAIL))
            return parent_named(handle.read())
    except OSError:
        return None


def _folder(uri: Any) -> str | None:
    """A workspace tree's folder: a `file://` URI (the CLI's), or the editor's URI object."""
    if isinstance(uri, dict):
        return string(uri.get("fsPath")) or string(uri.get("path"))
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    return unquote(uri.removeprefix("file://").removeprefix("localhost")) or None


def _read(path: Path, source: SessionSource) -> Session:
    label = source.label(path)
    session = Session(id=plain_name(path).stem, format=READER.name, source=label)
    thread = load_json(path, session.problems, label) or {}
    session.id = string(thread.get("id")) or session.id
    builder = Builder(session)
    messages = thread.get("messages") if isinstance(thread.get("messages"), list) else []
    for index, message in enumerate(messages):
        if isinstance(message, dict):
            builder.add(index, message)
        else:
            session.warn("bad_line", f"message {index} is not an object, skipped")
            session.count_record("(not an object)", "unknown")
    events = mapping(thread.get("usageLedger")).get("events")
    builder.ledger(events if isinstance(events, list) else [])
    builder.finish()
    session.parent_id = parent_in(thread.get("relationships"))
    if session.parent_id:
        session.relation = "fork"  # a thread of its own: its figures are not its parent's
    initial = mapping(mapping(thread.get("env")).get("initial"))
    tree = mapping(next(iter(listed(initial.get("trees"))), None))
    session.cwd = string(initial.get("cwd")) or _folder(tree.get("uri"))
    session.project = string(tree.get("displayName"))
    session.started_at = utc_time(thread.get("created"))
    stamps = [step.timestamp for step in session.steps if step.timestamp]
    traces = mapping(thread.get("meta")).get("traces")
    ends = [utc_time(trace.get("endTime")) for trace in traces if isinstance(trace, dict)] if isinstance(traces, list) else []
    session.ended_at = max([*stamps, *filter(None, ends)], default=session.started_at)
    if messages and isinstance(messages[-1], dict) and mapping(messages[-1].get("state")).get("type") == "cancelled":
        session.outcome = "interrupted"
    session.title = (string(thread.get("title")) or "").strip() or first_request(user_prompts(session.steps)) or session.id
    session.number_steps()
    return session
