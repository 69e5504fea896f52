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

from array import array
from typing import Any

from replay_site.readers.claude.shape import API_ERROR, MESSAGE_ID, MISSING, NO_UUID, SIDECHAIN, Shape

MESSAGE_KINDS = ("user", "assistant")
CHAIN_KINDS = ("user", "assistant", "system")


def response_key(number: int, obj: dict[str, Any]) -> object | None:
    """What StepBuilder.assistant makes one step of an assistant line by (its message id,
    else its uuid, else its line number); None for a line without a message object
    (shape_of keeps the same key of each assistant line)."""
    message = obj.get("message")
    if not isinstance(message, dict):
        return None
    message_id = message.get("id")
    return message_id if isinstance(message_id, str) else obj.get("uuid") or f"line-{number}"


def abandoned_lines(shape: Shape) -> set[int]:
    """Line numbers of user/assistant lines on branches the user rewound away from."""
    uids, kinds, flags, numbers = shape.uids, shape.kinds, shape.flags, shape.numbers
    # By uuid number: the line that has it (the last of several).
    line_of = array("i", [NO_UUID]) * shape.size
    for index, uid in enumerate(uids):
        if uid >= 0:
            line_of[uid] = index
    # and the line it stands for in the conversation, and that line's parent
    holder, up = line_of[:], array("i", [NO_UUID]) * shape.size
    for uid, index in enumerate(line_of):
        if index != NO_UUID:
            up[uid] = shape.parents[index]
    _splice_retries(shape, line_of, holder, up)
    message_kinds = {at for at, name in enumerate(shape.kind_names) if name in MESSAGE_KINDS}
    messages = array("i", (index for index, uid in enumerate(uids) if uid >= 0 and kinds[index] in message_kinds))
    if not messages:
        return set()
    # The conversation is the path to the file's last line, system lines (API errors) included.
    chain_kinds = {at for at, name in enumerate(shape.kind_names) if name in CHAIN_KINDS}
    last = next(index for index in reversed(range(len(shape))) if kinds[index] in chain_kinds and uids[index] >= 0)
    main, on_main, main_end = _chain(uids[last], holder, up)
    if all(on_main[uids[index]] for index in messages):
        return set()  # one straight conversation (most logs): nothing more to find
    # Where the conversation went on from each of its lines: a branch off line J is abandoned
    # only if the conversation's continuation from J was written after it (a later line
    # re-parented onto the earlier point J); otherwise the lines are shown in file order.
    continued = {up[uid]: numbers[line_of[uid]] for uid in main if up[uid] != NO_UUID}
    main_root_line = min((numbers[line_of[uid]] for uid in main if up[uid] == NO_UUID), default=0)
    # Rewinding the very first prompt starts a second root. Only a file whose lines really are linked
    # (hand-written ones often are not) and whose main chain reaches a true root can tell that apart.
    linked = main_end == "root" and 2 * sum(1 for index in messages if shape.parents[index] != NO_UUID) >= len(messages)
    assistant = shape.kind_names.index("assistant") if "assistant" in shape.kind_names else -1

    def message_id(index: int) -> object | None:
        return shape.responses[index] if kinds[index] == assistant and flags[index] & MESSAGE_ID else None

    main_messages = {message_id(holder[uid]) for uid in main} - {None}
    # The lines whose tool calls the conversation made, and the others' results, read again
    # (only here: most logs return above).
    calling = {index for index in messages if kinds[index] == assistant and (on_main[uids[index]] or message_id(index) in main_messages)}
    forks = [index for index in messages
             if not on_main[uids[index]] and not (kinds[index] == assistant and message_id(index) in main_messages)]
    main_calls: set[Any] = set()
    results: dict[int, tuple[Any, ...]] = {}
    wanted = sorted(calling.union(forks))
    for index, (_, obj) in zip(wanted, shape.lines(wanted)):
        if index in calling:
            main_calls.update(tool_uses(obj))
        else:
            results[index] = tool_results(obj)
    ends: dict[int, tuple[str, int | None]] = {}
    abandoned = set()
    for index in forks:
        if results[index] and all(result in main_calls for result in results[index]):
            continue
        end, junction = _end(uids[index], on_main, holder, up, ends)
        number = numbers[index]
        if end == "main":
            rewound = continued.get(junction, 0) > number
        else:
            # A sidechain (subagent lines in an old main file) is a separate tree, never a rewind.
            rewound = end == "root" and linked and not flags[index] & SIDECHAIN and main_root_line > number
        if rewound:
            abandoned.add(number)
    return abandoned


def _splice_retries(shape: Shape, line_of: array, holder: array, up: array) -> None:
    """Put each API-error retry line (`system`/`api_error`) after the reply it was retrying for.

    Claude Code writes a retry line late (when the next turn starts) with the parent of the
    request that failed, so the reply that finally came is its sibling, and the next lines hang
    off the retry line: read as written, the reply looks rewound. The retry's place is after
    the last line of that reply written before it (what descends from the shared parent, retry
    lines left out): its uuid stands for the retry line (`holder`) with that parent (`up`);
    the shape keeps what the log says.
    """
    uids, parents, flags = shape.uids, shape.parents, shape.flags
    retries = [index for index, flag in enumerate(flags) if flag & API_ERROR and uids[index] >= 0]
    moved: dict[int, tuple[int, int]] = {}
    for index in retries:
        parent = parents[index]
        start = line_of[parent] if parent >= 0 else NO_UUID
        if start == NO_UUID or start >= index:
            continue
        family, tip = {parent}, None
        for other in range(start + 1, index):
            uid = uids[other]
            if uid < 0 or parents[other] not in family or flags[other] & API_ERROR:
                continue
            family.add(uid)
            tip = uid
        if tip is not None:
            moved[uids[index]] = (index, tip)
    for uid, (index, tip) in moved.items():
        holder[uid], up[uid] = index, tip


def _chain(start: int, holder: array, up: array) -> tuple[array, bytearray, str]:
    """The chain from `start` up (uuid numbers, and a mark by each number on it), and how it
    ends: at a true "root" or "broken" (missing or cyclic parent)."""
    chain, on_chain = array("i"), bytearray(len(holder))
    current = start
    while current != NO_UUID:
        if current == MISSING or holder[current] == NO_UUID or on_chain[current]:
            return chain, on_chain, "broken"
        chain.append(current)
        on_chain[current] = 1
        current = up[current]
    return chain, on_chain, "root"


def _end(uid: int, on_main: bytearray, holder: array, up: array, memo: dict[int, tuple[str, int | None]]) -> tuple[str, int | None]:
    """Where the walk up from `uid` ends: on the "main" chain (a fork, with the main line it
    forks from), a separate "root", or "broken"."""
    path: list[int] = []
    current = uid
    while True:
        if current == NO_UUID:
            end: tuple[str, int | None] = ("root", None)
        elif current in memo:
            end = memo[current]
        elif current != MISSING and on_main[current]:
            end = ("main", current)
        elif current == MISSING or holder[current] == NO_UUID or current in path:
            end = ("broken", None)
        else:
            path.append(current)
            current = up[current]
            continue
        break
    for node in path:
        memo[node] = end
    return end


def response_ends(shape: Shape) -> tuple[array, array]:
    """The first line of each API response written over several lines (the same `message.id`,
    or the line's own uuid: StepBuilder.assistant's key), and its last line, in order of the first."""
    first: dict[object, int] = {}
    last: dict[int, int] = {}
    assistant = shape.kind_names.index("assistant") if "assistant" in shape.kind_names else -1
    for index, key in enumerate(shape.responses):
        if key is None or shape.kinds[index] != assistant:
            continue
        number = shape.numbers[index]
        start = first.setdefault(key, number)
        if start != number:
            last[start] = number
    starts = array("q", sorted(last))
    return starts, array("q", (last[start] for start in starts))


def tool_uses(obj: dict[str, Any]) -> tuple[Any, ...]:
    """The ids the line's tool_use blocks give (None for a block without one)."""
    return tuple(block.get("id") for block in _blocks(obj) if block.get("type") == "tool_use")


def tool_results(obj: dict[str, Any]) -> tuple[Any, ...]:
    """The tool_use ids the line's tool_result blocks answer (None for a block without one)."""
    return tuple(block.get("tool_use_id") for block in _blocks(obj) if block.get("type") == "tool_result")


def _blocks(obj: dict[str, Any]) -> list[dict[str, Any]]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []
