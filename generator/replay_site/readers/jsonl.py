"""Tolerant JSONL reading: every line untrusted, every bad line reported, none fatal."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from replay_site.model import Problem, RecordCounts, count_record
from replay_site.readers.files import BOM, DamagedStream, open_log
from replay_site.readers.huge_lines import HUGE_LINE, HugeLine

# A kind name from a log goes into sessions.json and onto the index: kept short.
KIND_LENGTH = 60


@dataclass(frozen=True)
class LineKinds:
    """A reader's one-line declaration for the account of what it read (Session.records):
    how one of its lines' kind is named, and the kinds it leaves out by design. Every other
    kind counts as shown until the reader says it does not know it (Session.not_understood)."""

    not_shown: Collection[str] = frozenset()
    name: Callable[[dict[str, Any]], str | None] | None = None  # None: the line's `type` (kind_of)

    def kind(self, obj: dict[str, Any]) -> str:
        return ((self.name or kind_of)(obj) or "(no type)")[:KIND_LENGTH]

    def count(self, obj: dict[str, Any], records: RecordCounts) -> None:
        kind = self.kind(obj)
        count_record(records, kind, "not_shown" if kind in self.not_shown else "shown")


BY_TYPE = LineKinds()


def iter_objects(path: Path, problems: list[Problem], label: str | None = None,
                 records: RecordCounts | None = None, kinds: LineKinds = BY_TYPE,
                 exact_integers: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each JSON object line of `path`, each counted in
    `records` (when given) by its kind as `kinds` names it. `exact_integers`: the log is
    written by Python, whose integers have any size (`loads`).

    Blank lines are passed over; a line that is not JSON, or is JSON but not an
    object, becomes a `bad_line` Problem naming `label` (default: the file name)
    and its line number, and reading goes on.
    """
    label = label or path.name
    with open_log(path) as handle:
        for number, raw in _lines(handle, problems, label):
            raw = _cleaned(number, raw)
            if not raw:
                continue
            try:
                value = loads(raw, exact_integers) if type(raw) is not HugeLine else _parsed_huge(raw, exact_integers)
            except ValueError as exc:
                reason = "truncated line" if _looks_truncated(raw) else f"invalid JSON ({exc})"
                problems.append(Problem("bad_line", f"{reason}, skipped", label, number))
                continue
            if not isinstance(value, dict):
                problems.append(Problem("bad_line", f"not a JSON object ({type(value).__name__}), skipped", label, number))
                continue
            if records is not None:
                kinds.count(value, records)
            yield number, value


def _lines(handle: BinaryIO, problems: list[Problem], label: str) -> Iterator[tuple[int, bytes | HugeLine]]:
    """Numbered lines, a line of HUGE_LINE bytes or more as a HugeLine (read as it is parsed,
    else passed over once the next line is asked for); a compressed stream that turns out cut
    or corrupt ends them with a Problem (the lines before it are kept)."""
    number, readline, limit = 0, handle.readline, HUGE_LINE
    while True:
        try:
            raw = readline(limit)
        except DamagedStream as exc:
            problems.append(Problem("bad_line", f"{exc}: the rest of the file is not read", label, number + 1))
            return
        if not raw:
            return
        number += 1
        if len(raw) < limit or raw.endswith(b"\n"):
            yield number, raw
            continue
        raw = HugeLine(handle, raw, first=number == 1)
        yield number, raw
        raw.finish()
        if raw.damage is not None:
            problems.append(Problem("bad_line", f"{raw.damage}: the rest of the file is not read", label, number))
            return


# Past this length a line's JSON is parsed from a view of the line, not a stripped copy (a
# 300 MB line would be in memory twice while it is parsed).
LONG_LINE = 1 << 20
_SPACE = b" \t\n\r\x0b\x0c"  # what bytes.strip() strips


def _cleaned(number: int, raw: bytes | bytearray | HugeLine) -> bytes | memoryview | HugeLine:
    """The line without the whitespace around it (nor, on the first line, a BOM); a HugeLine
    as it is (it strips itself)."""
    if type(raw) is HugeLine:
        return raw
    if len(raw) < LONG_LINE:
        raw = raw.strip()
        return raw.removeprefix(BOM).strip() if number == 1 else raw
    start, end = 0, len(raw)
    while end > start and raw[end - 1] in _SPACE:
        end -= 1
    while start < end and raw[start] in _SPACE:
        start += 1
    if number == 1 and raw.startswith(BOM, start):
        start += len(BOM)
        while start < end and raw[start] in _SPACE:
            start += 1
    return raw if (start, end) == (0, len(raw)) else memoryview(raw)[start:end]


def objects_again(path: Path, outlines: Iterable[tuple[int, dict[str, Any]]],
                  unread_kinds: Collection[str] = ()) -> Iterator[tuple[int, dict[str, Any]]]:
    """The whole objects of lines iter_objects gave before, read again by line number, for a
    reader that kept only an outline of each (a few keys, or its type alone) to hold less: a
    200 MB log's lines parsed took 660 MiB. Lines of `unread_kinds` (whose outline is all the
    reader needs) and a line that is no longer an object there (the file changed since) give
    their outline."""
    pending = iter(outlines)
    wanted = next(pending, None)
    with open_log(path) as handle:
        for number, raw in _lines(handle, [], path.name):  # its damage was reported by iter_objects
            if wanted is None:
                return
            if number < wanted[0]:
                continue
            value = None
            if kind_of(wanted[1]) not in unread_kinds:
                try:
                    raw = _cleaned(number, raw)
                    value = loads(raw) if type(raw) is not HugeLine else _parsed_huge(raw)
                except ValueError:
                    pass
            yield number, value if isinstance(value, dict) else wanted[1]
            wanted = next(pending, None)
    while wanted is not None:  # the file is shorter than it was
        yield wanted
        wanted = next(pending, None)


# What Python's json writes and reads but orjson refuses: a lone surrogate escape ("\\ud800"),
# the bare NaN, Infinity and -Infinity of a non-finite float (rlm-code rewards), and integers
# too large for a float.
_STANDARD_LIBRARY_ONLY = re.compile(rb"\\[uU][dD]|NaN|Infinity|[0-9]{20}")
# orjson reads an integer beyond 64 bits as a float, losing its digits.
_LONG_INTEGER = re.compile(rb"[0-9]{20}")


def loads(raw: bytes | memoryview, exact_integers: bool = False) -> Any:
    """One JSON value. A line orjson refuses for something the standard library accepts
    (_STANDARD_LIBRARY_ONLY) is parsed by the standard library instead, so it is shown (a
    surrogate becomes U+FFFD at the reader boundary; NaN stays a float the figures skip)
    rather than dropped; only those lines pay for the slower parser. With `exact_integers`
    (logs written by Python) a line with 20 digits in a row is parsed by the standard library
    too, which keeps every digit of an integer (the search costs about what parsing does, so
    only the readers of such logs ask for it)."""
    if exact_integers and _LONG_INTEGER.search(raw):
        return json.loads(bytes(raw))
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        if not _STANDARD_LIBRARY_ONLY.search(raw):
            raise
        return json.loads(bytes(raw))


def _parsed_huge(raw: HugeLine, exact_integers: bool = False) -> Any:
    """`loads` of a huge line, its parts as it is read, each as the line whole would be (a
    line orjson refuses is parsed by the standard library, and so is its every part)."""
    standard = False

    def string(data: memoryview) -> str:
        nonlocal standard
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            if not _STANDARD_LIBRARY_ONLY.search(data):
                raise
            standard = True
            return json.loads(bytes(data))

    def skeleton(data: bytearray) -> Any:
        data = _cleaned(0, data)
        return json.loads(bytes(data)) if standard else loads(data, exact_integers)

    return raw.parse(string, skeleton)


def _looks_truncated(raw: bytes | memoryview | HugeLine) -> bool:
    if isinstance(raw, HugeLine):
        return raw.looks_truncated()
    return bytes(raw[:1]) in (b"{", b"[") and bytes(raw[-1:]) not in (b"}", b"]")


def load_json(path: Path, problems: list[Problem], label: str | None = None) -> dict[str, Any] | None:
    """A whole-file JSON object, or None with a Problem when it is not one."""
    label = label or path.name
    try:
        with open_log(path) as handle:
            value = orjson.loads(handle.read().removeprefix(BOM))
    except (OSError, orjson.JSONDecodeError) as exc:
        problems.append(Problem("bad_line", f"unreadable JSON file ({exc})", label, None))
        return None
    if not isinstance(value, dict):
        problems.append(Problem("bad_line", "not a JSON object", label, None))
        return None
    return value


def kind_of(obj: dict[str, Any]) -> str | None:
    """A line's `type`, or None when it is not a string: in a damaged line it can be a list
    or an object, which must not reach set lookups or comparisons."""
    kind = obj.get("type")
    return kind if isinstance(kind, str) else None
