"""Which lines of a Claude Code transcript are the conversation, and which were rewound away.

Each user/assistant/system line names its parent (`parentUuid`; across a compaction boundary,
where `parentUuid` is null, `logicalParentUuid`). Rewinding to an earlier prompt or editing it
starts a new child of an earlier line, so a file holds a tree; the conversation the user ended
with is the chain from the file's last line up to its root. A branch off it is abandoned only
when the conversation's continuation from the branch point was written later in the file (the
user went back); a branch written after the conversation moved on is shown in file order.

Not every line off that chain is abandoned, though: one API response split over several lines
makes siblings of its parallel tool results (each result hangs off the line of its own
`tool_use`), and hand-written or very old logs have no parent links at all. So a line is
abandoned only if it is a real fork: its ancestors reach the main chain, it is not part of a
main-chain response (same `message.id`), and it is not the result of a main-chain tool call.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

MESSAGE_KINDS = ("user", "assistant")
CHAIN_KINDS = ("user", "assistant", "system")


# What the shape of a transcript is worked out from (this module, sidechains, the session's
# ids, which lines a summary titles); a line's content is read again when its step is built (jsonl.objects_again).
OUTLINE_KEYS = ("uuid", "parentUuid", "logicalParentUuid", "type", "subtype", "isSidechain", "agentId", "sessionId", "cwd",
                "gitBranch", "version", "leafUuid")
_SHARED_KEYS = frozenset({"type", "agentId", "sessionId", "cwd", "gitBranch", "version"})  # the same on most lines
_KEYS_SHARED = tuple((key, key in _SHARED_KEYS) for key in OUTLINE_KEYS)
# Kept in a line's own slots; the others (the same on most lines, or on few lines at all) in
# one tuple the lines that have the same values share.
_OWN_KEYS = ("uuid", "parentUuid", "type")
_CONTEXT_KEYS = tuple(key for key in OUTLINE_KEYS if key not in _OWN_KEYS)
_CONTEXT_AT = {key: index for index, key in enumerate(_CONTEXT_KEYS)}
_PICK_OWN = tuple(OUTLINE_KEYS.index(key) for key in _OWN_KEYS)
_PICK_CONTEXT = tuple(OUTLINE_KEYS.index(key) for key in _CONTEXT_KEYS)


class Outline:
    """A line as the few keys its place in the conversation needs (OUTLINE_KEYS, read as the
    line's own dict is: `get`, `[key]`), and of its message the id and the ids its tool_use
    and tool_result blocks name (`message`: (id, uses, results), None without a message
    object). Slots, and a tuple of the keys most lines share: a 200,000-step log has ~600,000
    lines (as dicts their outlines took ~500 MiB)."""

    __slots__ = (*_OWN_KEYS, "_context", "_message_id", "_uses", "_results")

    def __init__(self, values: list[Any], message: tuple[Any, tuple[Any, ...], tuple[Any, ...]] | None,
                 contexts: dict[tuple[Any, ...], tuple[Any, ...]] | None = None) -> None:
        self.uuid, self.parentUuid, self.type = (values[index] for index in _PICK_OWN)
        context = tuple(values[index] for index in _PICK_CONTEXT)
        try:
            self._context = context if contexts is None else contexts.setdefault(context, context)
        except TypeError:  # a damaged line's value is a list or an object: not shared
            self._context = context
        # _uses is None for a line without a message object.
        self._message_id, self._uses, self._results = message if message is not None else (None, None, ())

    @property
    def message(self) -> tuple[Any, tuple[Any, ...], tuple[Any, ...]] | None:
        return None if self._uses is None else (self._message_id, self._uses, self._results)

    def get(self, key: str, default: Any = None) -> Any:
        at = _CONTEXT_AT.get(key)
        if at is not None:
            value = self._context[at]
        elif key in _OWN_KEYS:
            value = getattr(self, key)
        else:
            return self._message() if key == "message" and self._uses is not None else default
        return default if value is None else value

    def __getitem__(self, key: str) -> Any:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def keys(self) -> list[str]:
        return [key for key in (*OUTLINE_KEYS, "message") if self.get(key) is not None]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Outline):
            other = other.as_dict()
        return self.as_dict() == other if isinstance(other, dict) else NotImplemented

    def as_dict(self) -> dict[str, Any]:
        return {key: self[key] for key in self.keys()}

    __hash__ = None

    def _message(self) -> dict[str, Any]:
        """The message as far as the outline knows it (a line that changed since it was read)."""
        return {"id": self._message_id, "content": [{"type": "tool_use", "id": use} for use in self._uses]
                + [{"type": "tool_result", "tool_use_id": result} for result in self._results]}


Line = Outline | dict[str, Any]  # an outline, or the whole line (what the outline was made from)
Row = tuple[int, Line]


def outlines(rows: Iterable[Row]) -> list[Row]:
    """Each line's Outline. The strings most lines repeat (session id, cwd, version) are
    shared, and so is every id (a line's uuid is the next one's parentUuid, a tool_use id its
    result's tool_use_id, a split response's message id on each line)."""
    kept = []
    ids: dict[str, str] = {}
    contexts: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    one, intern = ids.setdefault, sys.intern
    for number, obj in rows:
        get = obj.get
        values = [value if not isinstance(value := get(key), str)
                  else intern(value) if shared and len(value) < 200 else one(value, value)
                  for key, shared in _KEYS_SHARED]
        message = get("message")
        kept.append((number, Outline(values, _message_outline(message, one) if isinstance(message, dict) else None, contexts)))
    return kept


def _message_outline(message: dict[str, Any], one: Any) -> tuple[Any, tuple[Any, ...], tuple[Any, ...]]:
    """(id, tool_use ids, tool_result ids) of a message in one pass over its blocks, each
    string shared through `one` (dict.setdefault)."""
    uses, results = [], []
    content = message.get("content")
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict):
            kind = block.get("type")
            if kind == "tool_use":
                uses.append(block.get("id"))
            elif kind == "tool_result":
                results.append(block.get("tool_use_id"))
    message_id = message.get("id")
    return (one(message_id, message_id) if isinstance(message_id, str) else message_id,
            tuple(one(use, use) if isinstance(use, str) else use for use in uses),
            tuple(one(result, result) if isinstance(result, str) else result for result in results))


def response_key(number: int, obj: Line) -> object | None:
    """What StepBuilder.assistant makes one step of an assistant line by (its message id,
    else its uuid, else its line number); None for a line without a message object."""
    if isinstance(obj, Outline):
        if obj._uses is None:
            return None
        message_id = obj._message_id
    else:
        message = obj.get("message")
        if not isinstance(message, dict):
            return None
        message_id = message.get("id")
    return message_id if isinstance(message_id, str) else obj.get("uuid") or f"line-{number}"


def parent_of(obj: Line) -> str | None:
    parent = obj.get("parentUuid") or obj.get("logicalParentUuid")
    return parent if isinstance(parent, str) else None


def abandoned_lines(rows: list[Row]) -> set[int]:
    """Line numbers of user/assistant lines on branches the user rewound away from."""
    by_uuid: dict[str, Line] = {}
    for _, obj in rows:
        uuid = obj.get("uuid")
        if isinstance(uuid, str):
            by_uuid[uuid] = obj
    _splice_retries(rows, by_uuid)
    messages = [row for row in rows if row[1].get("type") in MESSAGE_KINDS and isinstance(row[1].get("uuid"), str)]
    if not messages:
        return set()
    # The conversation is the path to the file's last line, system lines (API errors) included.
    last = next(obj for _, obj in reversed(rows) if obj.get("type") in CHAIN_KINDS and isinstance(obj.get("uuid"), str))
    main, main_end = _chain(last["uuid"], by_uuid)
    if all(obj["uuid"] in main for _, obj in messages):
        return set()  # one straight conversation (most logs): no branch, and no index of every line to find one
    line_of = {obj["uuid"]: n for n, obj in rows if isinstance(obj.get("uuid"), str)}
    # Where the conversation went on from each of its lines: a branch off line J is abandoned
    # only if the conversation's continuation from J was written after it (a later line
    # re-parented onto the earlier point J); otherwise the lines are shown in file order.
    continued = {parent: line_of.get(uuid, 0) for uuid in main if (parent := parent_of(by_uuid[uuid]))}
    main_root_line = min((line_of.get(uuid, 0) for uuid in main if parent_of(by_uuid[uuid]) is None), default=0)
    # Rewinding the very first prompt starts a second root. Only a file whose lines really are linked
    # (hand-written ones often are not) and whose main chain reaches a true root can tell that apart.
    linked = main_end == "root" and 2 * sum(1 for _, obj in messages if parent_of(obj)) >= len(messages)
    main_messages = {_message_id(by_uuid[u]) for u in main if by_uuid[u].get("type") == "assistant"} - {None}
    main_calls = {
        use
        for _, obj in messages
        if obj.get("type") == "assistant" and (obj.get("uuid") in main or _message_id(obj) in main_messages)
        for use in tool_uses(obj)
    }
    ends: dict[str, tuple[str, str | None]] = {}
    abandoned = set()
    for number, obj in messages:
        if obj["uuid"] in main:
            continue
        if obj.get("type") == "assistant" and _message_id(obj) in main_messages:
            continue
        results = tool_results(obj)
        if results and all(result in main_calls for result in results):
            continue
        end, junction = _end(obj["uuid"], main, by_uuid, ends)
        if end == "main":
            rewound = continued.get(junction, 0) > number
        else:
            # A sidechain (subagent lines in an old main file) is a separate tree, never a rewind.
            rewound = end == "root" and linked and obj.get("isSidechain") is not True and main_root_line > number
        if rewound:
            abandoned.add(number)
    return abandoned


def _splice_retries(rows: list[Row], by_uuid: dict[str, Line]) -> None:
    """Put each API-error retry line (`system`/`api_error`) after the reply it was retrying for.

    Claude Code writes a retry line late (when the next turn starts) with the parent of the
    request that failed, so the reply that finally came is its sibling, and the next lines hang
    off the retry line: read as written, the reply looks rewound. The retry's place is after
    the last line of that reply written before it (what descends from the shared parent, retry
    lines left out); `by_uuid` gets the retry with that parent, the rows keep what the log says.
    """
    retries = [index for index, (_, obj) in enumerate(rows)
               if obj.get("type") == "system" and obj.get("subtype") == "api_error" and isinstance(obj.get("uuid"), str)]
    if not retries:
        return  # most logs: no index of every line needed
    line_of = {obj["uuid"]: index for index, (_, obj) in enumerate(rows) if isinstance(obj.get("uuid"), str)}
    for index in retries:
        obj = rows[index][1]
        parent = parent_of(obj)
        start = line_of.get(parent) if parent else None
        if start is None or start >= index:
            continue
        family, tip = {parent}, None
        for _, other in rows[start + 1:index]:
            uuid = other.get("uuid")
            if not isinstance(uuid, str) or parent_of(other) not in family:
                continue
            if other.get("type") == "system" and other.get("subtype") == "api_error":
                continue
            family.add(uuid)
            tip = uuid
        if tip is not None:
            by_uuid[obj["uuid"]] = {**obj, "parentUuid": tip}


def _chain(start: str, by_uuid: dict[str, Line]) -> tuple[set[str], str]:
    """The chain from `start` up, and how it ends: at a true "root" or "broken" (missing or cyclic parent)."""
    chain: set[str] = set()
    current: str | None = start
    while current:
        if current not in by_uuid or current in chain:
            return chain, "broken"
        chain.add(current)
        current = parent_of(by_uuid[current])
    return chain, "root"


def _end(uuid: str, main: set[str], by_uuid: dict[str, Line], memo: dict[str, tuple[str, str | None]]) -> tuple[str, str | None]:
    """Where the walk up from `uuid` ends: on the "main" chain (a fork, with the main line it
    forks from), a separate "root", or "broken"."""
    path: list[str] = []
    current: str | None = uuid
    while True:
        if current is None:
            end: tuple[str, str | None] = ("root", None)
        elif current in memo:
            end = memo[current]
        elif current in main:
            end = ("main", current)
        elif current not in by_uuid or current in path:
            end = ("broken", None)
        else:
            path.append(current)
            current = parent_of(by_uuid[current])
            continue
        break
    for node in path:
        memo[node] = end
    return end


def _message_id(obj: Line) -> str | None:
    if isinstance(obj, Outline):
        value = obj._message_id
    else:
        message = obj.get("message")
        value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) else None


def tool_uses(obj: Line) -> tuple[Any, ...]:
    """The ids the line's tool_use blocks give (None for a block without one)."""
    if isinstance(obj, Outline):
        return obj._uses or ()
    return tuple(block.get("id") for block in _blocks(obj) if block.get("type") == "tool_use")


def tool_results(obj: Line) -> tuple[Any, ...]:
    """The tool_use ids the line's tool_result blocks answer (None for a block without one)."""
    if isinstance(obj, Outline):
        return obj._results
    return tuple(block.get("tool_use_id") for block in _blocks(obj) if block.get("type") == "tool_result")


def _blocks(obj: dict[str, Any]) -> list[dict[str, Any]]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
