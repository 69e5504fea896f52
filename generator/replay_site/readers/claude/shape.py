"""What the shape of a Claude Code transcript is worked out from (dag.py, sidechains.py, the
session's ids, which lines a summary titles), one column a field: a line's place in the
conversation as a few numbers, not as an object. A 200,000-step log has ~600,000 lines;
an object of each line's few keys (its uuid, parent, type, message and tool ids) took
~350 bytes a line, and the index of every uuid the conversation's shape is found with as
much again at the build's peak (issue 20). Here a line takes ~35 bytes, and each uuid an
entry in one table while the lines are read: a uuid is a number, the line that first has
it, and the table is let go once every parent is known."""
from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

from replay_site.readers.claude.meta import summary_leaves
from replay_site.readers.jsonl import kind_of, objects_again

NO_UUID = -1  # a line without a uuid string; a line without a parent
MISSING = -2  # a parent that no line of the file has

# flags of a line
SIDECHAIN = 1  # isSidechain: true
NOT_SIDECHAIN = 2  # isSidechain: false
API_ERROR = 4  # a system line of subtype api_error (a retry, dag._splice_retries)
MESSAGE = 8  # has a message object
MESSAGE_ID = 16  # whose id is a string

# Kept of each line, for the session's own fields (transcript._session).
CONTEXT_KEYS = ("sessionId", "agentId", "cwd", "gitBranch", "version", "sessionKind")


class Shape:
    """The lines of one transcript (all of a file's, or those `select` picks), in file order.
    `uids` and `parents` name uuids by number (the index, in the file's first Shape, of the
    first line that has the uuid), so that a selection's lines keep them. `objects`: the whole
    lines, when they are kept (a log small enough, reader.WHOLE_LOG), else they are read again."""

    def __init__(self, path: Path, size: int) -> None:
        self.path = path
        self.size = size  # uuid numbers are below this: the lines of the file read
        self.numbers = array("q")
        self.uids = array("i")
        self.parents = array("i")
        self.kinds = array("i")  # index in kind_names
        self.kind_names: list[str | None] = []
        self.flags = bytearray()
        # an assistant line's response key (dag.response_key), else None
        self.responses: list[object] = []
        self.contexts = array("i")  # index in context_values: a line's CONTEXT_KEYS
        self.context_values: list[tuple[Any, ...]] = []
        # uuid strings only where they are asked for: sidechain lines (their child's key),
        # and lines a summary may title (by uuid number)
        self.sidechain_uuids: dict[int, str] = {}
        self.titled: dict[int, str] = {}
        self.leaves: dict[int, Any] = {}  # a summary line's leafUuid, by line
        self.objects: list[dict[str, Any]] | None = None

    def __len__(self) -> int:
        return len(self.numbers)

    def kind(self, index: int) -> str | None:
        return self.kind_names[self.kinds[index]]

    def context(self, index: int) -> tuple[Any, ...]:
        return self.context_values[self.contexts[index]]

    def select(self, indexes: list[int]) -> Shape:
        """The shape of these lines alone (a sidechain's, the main conversation's)."""
        picked = Shape(self.path, self.size)
        for name in ("numbers", "uids", "parents", "kinds", "contexts"):
            column = getattr(self, name)
            setattr(picked, name, array(column.typecode, (column[index] for index in indexes)))
        picked.flags = bytearray(self.flags[index] for index in indexes)
        picked.responses = [self.responses[index] for index in indexes]
        picked.kind_names, picked.context_values, picked.titled = self.kind_names, self.context_values, self.titled
        picked.sidechain_uuids = {new: self.sidechain_uuids[old] for new, old in enumerate(indexes) if old in self.sidechain_uuids}
        picked.leaves = {new: self.leaves[old] for new, old in enumerate(indexes) if old in self.leaves}
        if self.objects is not None:
            picked.objects = [self.objects[index] for index in indexes]
        return picked

    def to_read(self) -> Shape:
        """These lines as `lines` reads them, without the columns of their places."""
        light = Shape(self.path, self.size)
        light.numbers, light.kinds, light.kind_names, light.objects = self.numbers, self.kinds, self.kind_names, self.objects
        return light

    def lines(self, indexes: Iterable[int] | None = None, unread_kinds: Collection[str] = (),
              let_go: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
        """(number, whole line) of these lines (all by default) in order: the kept ones (each
        dropped once given, with `let_go`: a long log's lines leave memory as its steps fill
        it), or read again, but a line of `unread_kinds`, or no longer an object (the file
        changed since), which stands as its type alone."""
        indexes = range(len(self)) if indexes is None else indexes
        numbers, objects = self.numbers, self.objects
        if objects is None:
            stand_ins = ((numbers[index], {"type": self.kind(index)}) for index in indexes)
            yield from objects_again(self.path, stand_ins, unread_kinds)
            return
        for index in indexes:
            obj = objects[index]
            if let_go:
                objects[index] = None
            yield numbers[index], obj


def shape_of(path: Path, rows: Iterable[tuple[int, dict[str, Any]]], keep: bool) -> Shape:
    """The shape of a file's lines as `rows` gives them; `keep`: their objects too."""
    shape = Shape(path, 0)
    first: dict[str, int] = {}  # each uuid's number, while the lines are read
    waiting: dict[int, str] = {}  # a parent named before its line (or by no line): by line
    kind_at: dict[object, int] = {}
    context_at: dict[tuple[Any, ...], int] = {}
    objects: list[dict[str, Any]] = []
    named = set(summary_leaves(path.parent))  # uuids a summary in the folder titles
    last_response: object = None
    numbers, uids, parents, kinds, flags, responses, contexts = (shape.numbers, shape.uids, shape.parents, shape.kinds,
                                                                shape.flags, shape.responses, shape.contexts)
    for index, (number, obj) in enumerate(rows):
        if keep:
            objects.append(obj)
        get = obj.get
        numbers.append(number)
        uuid = get("uuid")
        uids.append(first.setdefault(uuid, index) if isinstance(uuid, str) else NO_UUID)
        parent = get("parentUuid") or get("logicalParentUuid")
        if not isinstance(parent, str):
            parents.append(NO_UUID)
        elif (known := first.get(parent)) is not None:
            parents.append(known)
        else:
            parents.append(MISSING)
            waiting[index] = parent
        kind = kind_of(obj)
        kinds.append(kind_at.setdefault(kind, len(kind_at)))
        sidechain = get("isSidechain")
        flag = SIDECHAIN if sidechain is True else NOT_SIDECHAIN if sidechain is False else 0
        if kind == "system" and get("subtype") == "api_error":
            flag |= API_ERROR
        message = get("message")
        response = None
        if isinstance(message, dict):
            flag |= MESSAGE
            message_id = message.get("id")
            if isinstance(message_id, str):
                flag |= MESSAGE_ID
            if kind == "assistant":
                response = message_id if isinstance(message_id, str) else uuid or f"line-{number}"
                if response == last_response:  # the lines of one response share their key
                    response = last_response
                last_response = response
        flags.append(flag)
        responses.append(response)
        context = tuple(map(get, CONTEXT_KEYS))
        values = shape.context_values
        try:
            at = context_at.setdefault(context, len(values))  # most lines share theirs
        except TypeError:  # a damaged line's value is a list or an object: not shared
            at = len(values)
        if at == len(values):
            values.append(context)
        contexts.append(at)
        if sidechain is True and isinstance(uuid, str):
            shape.sidechain_uuids[index] = uuid
        if kind == "summary":
            leaf = get("leafUuid")
            shape.leaves[index] = leaf
            if isinstance(leaf, str):
                named.add(leaf)
    for index, parent in waiting.items():
        shape.parents[index] = first.get(parent, MISSING)
    shape.size = len(shape.numbers)
    shape.kind_names = list(kind_at)
    shape.titled = {first[uuid]: uuid for uuid in named if uuid in first}
    if keep:
        shape.objects = objects
    return shape
