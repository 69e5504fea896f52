"""gptme's `events.jsonl` (gptme ≥ 0.35, logmanager/eventlog.py): the conversation's append-only
history, `{seq, ts, type, payload}` per line. conversation.jsonl holds only the final state
(gptme rewrites it whole on /undo and /edit), so messages undone or edited away survive only
here. Replaying the events (message_append appends, undo pops `n`, message_edit and checkpoint
replace the whole list) finds them, and where each stood: after the last message that is
still in the conversation. The reader shows them there, folded, like a Claude Code rewind.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from replay_site.model import Problem, Session
from replay_site.readers.fields import count, mapping
from replay_site.readers.jsonl import LineKinds, iter_objects, kind_of

UNDONE = "Undone (not part of the final conversation)"
EDITED = "Edited away (not part of the final conversation)"
# message_append and checkpoint restate conversation.jsonl; undo and message_edit are what the
# page shows (the branches they left). Messages are told apart by role, content and timestamp.
LINE_KINDS = LineKinds(not_shown=frozenset({"message_append", "checkpoint"}))


@dataclass
class _Entry:
    line: int
    message: dict[str, Any]
    taken_back: str | None = None  # UNDONE or EDITED once it left the conversation


@dataclass
class Abandoned:
    line: int  # of events.jsonl, where the message was appended
    message: dict[str, Any]
    why: str
    after: dict[str, Any] | None  # the last message before it that is still in the conversation


@dataclass
class Replay:
    abandoned: list[Abandoned]  # in the order they were written
    first_kept: dict[str, Any] | None  # the first message written that is still in the conversation


def replay(path: Path, session: Session, label: str) -> Replay:
    """The messages of `path` (an events.jsonl) that are no longer in the conversation."""
    state: list[_Entry] = []
    written: list[_Entry] = []
    for number, event in iter_objects(path, session.problems, label, session.records, LINE_KINDS):
        kind, payload = kind_of(event), mapping(event.get("payload"))
        if kind not in ("message_append", "undo", "message_edit", "checkpoint"):
            session.problems.append(Problem("unknown_event", f"event of unknown type {kind!r}, not replayed", label, number))
            session.not_understood(LINE_KINDS.kind(event))
        elif kind == "message_append" and isinstance(payload.get("message"), dict):
            entry = _Entry(number, payload["message"])
            state.append(entry)
            written.append(entry)
        elif kind == "undo":
            undone = count(payload.get("n"))
            for entry in state[len(state) - undone:] if undone else []:
                entry.taken_back = UNDONE
            state = state[:len(state) - undone] if undone else state
        elif kind in ("message_edit", "checkpoint") and isinstance(payload.get("messages"), list):
            # The whole list, matched by message rather than by place: it may hold the hidden
            # system messages gptme never appends. A message_edit takes back what it leaves out;
            # a checkpoint (a snapshot for recovery) only restates.
            previous = {_key(entry.message): entry for entry in state}
            state = []
            for message in (message for message in payload["messages"] if isinstance(message, dict)):
                entry = previous.pop(_key(message), None)
                if entry is None:
                    entry = _Entry(number, message)
                    written.append(entry)
                state.append(entry)
            for entry in previous.values() if kind == "message_edit" else ():
                entry.taken_back = EDITED
        else:
            session.problems.append(Problem("bad_line", f"{kind} without its payload, not replayed", label, number))
    found, anchor = [], None
    for entry in written:
        if entry.taken_back is None:
            anchor = entry.message
        else:
            found.append(Abandoned(entry.line, entry.message, entry.taken_back, anchor))
    return Replay(found, next((entry.message for entry in written if entry.taken_back is None), None))


def _key(message: dict[str, Any]) -> tuple[str, str, str]:
    return str(message.get("role")), str(message.get("content")), str(message.get("timestamp"))


def with_abandoned(messages: list[tuple[int, dict[str, Any]]], replayed: Replay,
                   session: Session) -> list[tuple[int, dict[str, Any], str | None]]:
    """conversation.jsonl's messages with the abandoned ones put back where they stood: after
    the message they followed (the hidden system messages gptme writes first are not in
    events.jsonl, so one with nothing before it goes before the first message that is)."""
    position = {_key(message): index for index, (_, message) in enumerate(messages)}
    first = position.get(_key(replayed.first_kept), len(messages)) if replayed.first_kept is not None else len(messages)
    before: dict[int, list[Abandoned]] = defaultdict(list)
    lost = 0
    for item in replayed.abandoned:
        if item.after is None:
            at = first
        elif _key(item.after) in position:
            at = position[_key(item.after)] + 1
        else:
            at, lost = len(messages), lost + 1
        before[at].append(item)
    if lost:
        session.warn("warning", f"{lost} undone or edited message(s) of events.jsonl follow a message conversation.jsonl "
                                "does not hold: shown at the end")
    merged: list[tuple[int, dict[str, Any], str | None]] = []
    for index in range(len(messages) + 1):
        merged.extend((item.line, item.message, item.why) for item in before.get(index, ()))
        if index < len(messages):
            merged.append((*messages[index], None))
    return merged
