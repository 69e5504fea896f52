"""Where a forked Codex thread's own records start.

A thread made by `codex fork`, or a subagent spawned with its parent's context
(`spawn_agent` with `fork_context`/`fork_turns`), starts with its own `session_meta`, then
the parent thread's history replayed into it: the parent's meta line(s), turns, prompts and
calls (the `spawn_agent` call that made the child among them), every line re-stamped with
the fork's time. That copy is the parent's work: titled, counted and shown in the parent.

The first rule that applies finds the end of the copy (see openai/codex rollout history,
0.14x-0.16x); rules 2 and 3 only where a copy begins, with a parent's meta replayed right
after the thread's own (a subagent spawned without context has none, and its first turn may
come after its initial context lines):
1. `subagent_history_start_ordinal` in the child's meta: lines with an `ordinal` at or past it
   are the child's (paginated rollouts);
2. the first inter-agent message, or its metadata with `trigger_turn: true`: the spawn task
   delivered to the child (MultiAgent V2);
3. the first turn (`task_started` / `turn_context`) whose `turn_id`, a UUIDv7, was minted
   after the child's own id: replayed turns keep the ids they had when they first ran
   (UUIDv4 turn ids carry no time: `task_started.started_at` against the meta's timestamp);
4. else, when the parent's file is here, the leading lines equal to lines of the parent.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from replay_site.readers.codex.shapes import Record
from replay_site.readers.jsonl import kind_of
from replay_site.readers.timestamps import utc_time


def parent_thread(meta: dict[str, Any]) -> str | None:
    """A subagent's parent, from `source: {"subagent": {"thread_spawn": {"parent_thread_id": …}}}`
    (older builds spell it `sub_agent`) or the top-level `parent_thread_id`."""
    spawn = _thread_spawn(meta)
    if spawn.get("parent_thread_id"):
        return str(spawn["parent_thread_id"])
    parent = meta.get("parent_thread_id")
    return str(parent) if parent else None


def agent_path(meta: dict[str, Any]) -> str:
    """A MultiAgent V2 child's address (`/root/lint_check`), or ""."""
    value = _thread_spawn(meta).get("agent_path") or meta.get("agent_path")
    return value if isinstance(value, str) else ""


def forked_from(meta: dict[str, Any]) -> str | None:
    """The thread whose history was copied into this one (top level, or in its thread_spawn)."""
    value = meta.get("forked_from_id") or _thread_spawn(meta).get("forked_from_id")
    return str(value) if value else None


def is_subagent(meta: dict[str, Any]) -> bool:
    """Spawned by an agent (its tokens are its parent's bill), not forked by the user."""
    return bool(_thread_spawn(meta)) or meta.get("thread_source") == "subagent"


def copies_history(meta: dict[str, Any], records: Sequence[Record] = ()) -> bool:
    """Whether the thread starts with a copy of another's history: it says it was forked, or
    it is a subagent whose parent's meta is replayed right after its own (a `thread_spawn`
    child with its parent's context, 0.14x, says neither `forked_from_id` nor `thread_source`)."""
    if forked_from(meta) is not None or (meta.get("thread_source") == "subagent" and parent_thread(meta) is not None):
        return True
    parent = parent_thread(meta)
    return parent is not None and len(records) > 1 and records[1].kind == "session_meta" \
        and str(records[1].payload.get("id") or records[1].payload.get("session_id") or "") == parent


def own_start(records: Sequence[Record], meta: dict[str, Any], parent: Sequence[Record] | None) -> int | None:
    """The index of the first record that is the thread's own (records[0] is its meta); None
    when no rule can tell."""
    start = _by_ordinal(records, meta.get("subagent_history_start_ordinal"))
    replayed = len(records) > 1 and records[1].kind == "session_meta"
    if start is None and replayed:
        start = next((index for index, record in enumerate(records) if index and _delivers_task(record)), None)
    if start is None and replayed:
        start = _by_turn_time(records, meta)
    if start is None and parent is not None:
        start = _after_copied(records, parent)
    return start


def _thread_spawn(meta: dict[str, Any]) -> dict[str, Any]:
    source = meta.get("source")
    if not isinstance(source, dict):
        return {}
    subagent = source.get("subagent", source.get("sub_agent"))
    spawn = subagent.get("thread_spawn") if isinstance(subagent, dict) else None
    return spawn if isinstance(spawn, dict) else {}


def _by_ordinal(records: Sequence[Record], first: Any) -> int | None:
    if not isinstance(first, int) or isinstance(first, bool) or not any(r.ordinal is not None for r in records):
        return None
    return next((index for index, record in enumerate(records) if index and record.ordinal is not None and record.ordinal >= first),
                len(records))


def _delivers_task(record: Record) -> bool:
    if record.kind == "inter_agent_communication":
        return True
    return record.kind == "inter_agent_communication_metadata" and record.payload.get("trigger_turn") is True


def _by_turn_time(records: Sequence[Record], meta: dict[str, Any]) -> int | None:
    born = _uuid7_ms(meta.get("id"))
    born_at = utc_time(meta.get("timestamp"))
    for index, record in enumerate(records):
        if not index or not _starts_turn(record):
            continue
        minted = _uuid7_ms(record.payload.get("turn_id"))
        if minted is not None and born is not None:
            if minted >= born:
                return index
            continue
        started = record.payload.get("started_at")
        if born_at is not None and isinstance(started, (int, float)) and not isinstance(started, bool):
            if datetime.fromtimestamp(started, born_at.tzinfo) >= born_at.replace(microsecond=0):
                return index
    return None


def _starts_turn(record: Record) -> bool:
    return record.kind == "turn_context" or (record.kind == "event_msg" and kind_of(record.payload) == "task_started")


def _uuid7_ms(value: Any) -> int | None:
    """Milliseconds since the epoch that a UUIDv7 carries in its first 48 bits."""
    if not isinstance(value, str) or len(value) != 36 or value[14] != "7":
        return None
    try:
        return int(value[:8] + value[9:13], 16)
    except ValueError:
        return None


def _key(record: Record) -> str:
    payload = {k: v for k, v in record.payload.items() if k != "_metadata"}
    return record.kind + json.dumps(payload, sort_keys=True, default=str)


def _after_copied(records: Sequence[Record], parent: Sequence[Record]) -> int:
    copied = {_key(record) for record in parent}
    start = 1
    while start < len(records) and (records[start].kind == "session_meta" or _key(records[start]) in copied):
        start += 1
    return start
