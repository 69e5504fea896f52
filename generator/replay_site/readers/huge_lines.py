"""A JSONL line too long to hold twice (a tool's 300 MB output), parsed as it is read.

Parsed whole, such a line is held three times at once: its bytes, and each long string of
it decoded (and Claude Code writes a Bash output twice on its line: the tool_result the
model saw and toolUseResult.stdout). Here the line is read a chunk at a time: its short
parts are gathered into a skeleton where each long string stands as a placeholder, each
long string is decoded alone once its closing quote is read (its bytes then let go), and
a long string whose bytes equal an earlier one's is that string again, not another copy.
The skeleton is then parsed and the placeholders replaced: the same object as parsing the
line whole gives.
"""
from __future__ import annotations

import hashlib
import mmap
import os
import re
from collections.abc import Callable
from typing import Any, BinaryIO

from replay_site.readers.files import BOM, DamagedStream

# A line at least this long is parsed as it is read (jsonl._lines).
HUGE_LINE = 16 * 1024 * 1024
# A string whose JSON text is longer than this is decoded on its own.
LONG_STRING = 1024 * 1024
_CHUNK = 1024 * 1024
_SPACE = b" \t\n\r\x0b\x0c"  # what bytes.strip() strips
_NOT_SPACE = re.compile(b"[^" + re.escape(_SPACE) + b"]")


class HugeLine:
    """The line whose first HUGE_LINE bytes are `head`, the rest of it still in `handle`:
    `parse` it or let `jsonl._lines` pass over the rest (`finish`)."""

    def __init__(self, handle: BinaryIO, head: bytes, first: bool) -> None:
        self._handle, self._head, self._first, self._length = handle, head, first, len(head)
        self.damage: DamagedStream | None = None  # the compressed stream broke inside this line
        self._ends = b""  # its first and last bytes that are not whitespace, so far (looks_truncated)

    def __len__(self) -> int:
        """At least HUGE_LINE: the bytes read before it was known to be huge."""
        return self._length

    def _chunks(self):
        """The line's bytes, a chunk at a time; each is let go of once handed out."""
        head, self._head = self._head, None
        if head is None:
            return
        if self._first:
            head = head.lstrip(_SPACE).removeprefix(BOM)
        yield head
        while not head.endswith(b"\n"):
            try:
                head = self._handle.readline(_CHUNK)
            except DamagedStream as exc:
                self.damage = exc
                return
            if not head:
                return
            yield head

    def finish(self) -> None:
        """Read past what is left of the line, unparsed."""
        for _ in self._chunks():
            pass

    def _note_ends(self, chunk: bytes) -> None:
        """Keep the line's first and last bytes that are not whitespace, so far."""
        first = self._ends[:1] or (found.group() if (found := _NOT_SPACE.search(chunk)) else b"")
        self._ends = first + (_last_not_space(chunk) or self._ends[1:])

    def looks_truncated(self) -> bool:
        return self._ends[:1] in (b"{", b"[") and self._ends[-1:] not in (b"}", b"]")

    def parse(self, string: Callable[[memoryview], str], skeleton_value: Callable[[bytearray], Any]) -> Any:
        """The line's JSON value, `string` parsing each long string (its JSON text), then
        `skeleton_value` the rest (the whitespace around it left to it); ValueError as they
        raise it for a line that is not JSON."""
        skeleton = bytearray()
        strings: list[str] = []
        by_bytes: dict[tuple[int, bytes], str] = {}
        nonce = os.urandom(8).hex()  # no string of the line can be a placeholder
        current: _Text | None = None  # the string being read, from its opening quote
        backslashes = 0  # how many end the part of `current` read so far
        for chunk in self._chunks():
            self._note_ends(chunk)
            view, position = memoryview(chunk), 0
            while position < len(chunk):
                quote = chunk.find(b'"', position)
                end = len(chunk) if quote < 0 else quote
                if current is None:
                    skeleton += view[position:end]
                    if quote < 0:
                        break
                    current, backslashes, position = _Text(), 0, quote + 1
                    continue
                run = _backslashes_ending(chunk, position, end)
                backslashes = backslashes + run if run == end - position else run
                current.add(view[position:end])
                if quote < 0:
                    break
                current.add(b'"')
                position = quote + 1
                if backslashes % 2:  # an escaped quote: the string goes on
                    backslashes = 0
                    continue
                if current.long:
                    skeleton += _placeholder(len(strings), nonce)
                    strings.append(_decoded(current, by_bytes, string))
                else:
                    skeleton += current.short
                current = None
            view.release()
        if current is not None:  # cut inside a string
            with current.view() as rest:
                skeleton += rest
            current.close()
        value = skeleton_value(skeleton)
        return _filled(value, strings, nonce) if strings else value


def _backslashes_ending(chunk: bytes, start: int, end: int) -> int:
    """How many backslashes end chunk[start:end], read a few bytes at a time from its end."""
    stop = end
    while stop > start:
        low = max(start, stop - 64)
        kept = len(chunk[low:stop].rstrip(b"\\"))
        if kept:
            return end - low - kept
        stop = low
    return end - start


def _last_not_space(chunk: bytes) -> bytes:
    stop = len(chunk)
    while stop > 0:
        kept = chunk[max(0, stop - 64):stop].rstrip(_SPACE)
        if kept:
            return kept[-1:]
        stop -= 64
    return b""


def _placeholder(index: int, nonce: str) -> bytes:
    return f'"\\u0000{nonce} {index}"'.encode()


class _Text:
    """A string's JSON text as it is read: in a bytearray while short, in an anonymous memory
    map of its own once longer than LONG_STRING. A bytearray grown a chunk at a time to
    hundreds of MB leaves its earlier sizes in the heap, held after it is let go; the map's
    pages go back to the system when it is closed."""

    def __init__(self) -> None:
        self.short = bytearray(b'"')
        self._map: mmap.mmap | None = None
        self._size = 0

    @property
    def long(self) -> bool:
        return self._map is not None

    def add(self, data: bytes | memoryview) -> None:
        if self._map is None:
            self.short += data
            if len(self.short) <= LONG_STRING:
                return
            data, self.short = self.short, bytearray()
            self._map = mmap.mmap(-1, 4 * LONG_STRING, flags=mmap.MAP_PRIVATE)  # shared, it could not grow
        end = self._size + len(data)
        if end > len(self._map):
            self._map.resize(max(end, 2 * len(self._map)))
        self._map[self._size:end] = data
        self._size = end

    def view(self) -> memoryview:
        return memoryview(self.short if self._map is None else self._map)[:self._size if self._map else len(self.short)]

    def close(self) -> None:
        if self._map is not None:
            self._map.close()


def _decoded(text: _Text, by_bytes: dict[tuple[int, bytes], str], loads: Callable[[memoryview], str]) -> str:
    """A long string from its JSON text (quotes included), the same str as an earlier
    string of the line with the same bytes."""
    with text.view() as raw:
        key = (len(raw), hashlib.blake2b(raw, digest_size=32).digest())
        found = by_bytes.get(key)
        if found is None:
            found = by_bytes[key] = loads(raw)
    text.close()
    return found


def _filled(value: Any, strings: list[str], nonce: str) -> Any:
    """`value` with each placeholder string replaced by the long string it stands for."""
    prefix = f"\x00{nonce} "

    def real(item: Any) -> Any:
        return strings[int(item[len(prefix):])] if isinstance(item, str) and item.startswith(prefix) else item

    if isinstance(value, str):
        return real(value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if any(isinstance(key, str) and key.startswith(prefix) for key in node):
                items = [(real(key), item) for key, item in node.items()]
                node.clear()
                node.update(items)
            for key, item in node.items():
                if isinstance(item, (dict, list)):
                    stack.append(item)
                elif isinstance(item, str) and item.startswith(prefix):
                    node[key] = real(item)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, (dict, list)):
                    stack.append(item)
                elif isinstance(item, str) and item.startswith(prefix):
                    node[index] = real(item)
    return value
