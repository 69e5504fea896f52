"""Tolerant JSONL reading: every line untrusted, every bad line reported, none fatal."""
from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Problem
from replay_site.readers.files import BOM, DamagedStream, open_log


def iter_objects(path: Path, problems: list[Problem], label: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each JSON object line of `path`.

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
                value = loads(raw)
            except ValueError as exc:
                reason = "truncated line" if _looks_truncated(raw) else f"invalid JSON ({exc})"
                problems.append(Problem("bad_line", f"{reason}, skipped", label, number))
                continue
            if not isinstance(value, dict):
                problems.append(Problem("bad_line", f"not a JSON object ({type(value).__name__}), skipped", label, number))
                continue
            yield number, value


def _lines(handle: Iterable[bytes], problems: list[Problem], label: str) -> Iterator[tuple[int, bytes]]:
    """Numbered lines; a compressed stream that turns out cut or corrupt ends them with a
    Problem (the lines before it are kept)."""
    number = 0
    lines = iter(handle)
    while True:
        try:
            raw = next(lines)
        except StopIteration:
            return
        except DamagedStream as exc:
            problems.append(Problem("bad_line", f"{exc}: the rest of the file is not read", label, number + 1))
            return
        number += 1
        yield number, raw


def _cleaned(number: int, raw: bytes) -> bytes:
    raw = raw.strip()
    return raw.removeprefix(BOM).strip() if number == 1 else raw


def objects_again(path: Path, outlines: Iterable[tuple[int, dict[str, Any]]],
                  unread_kinds: Collection[str] = ()) -> Iterator[tuple[int, dict[str, Any]]]:
    """The whole objects of lines iter_objects gave before, read again by line number, for a
    reader that kept only an outline of each (a few keys) to hold less: a 200 MB log's lines
    parsed took 660 MiB. Lines of `unread_kinds` (whose outline is all the reader needs) and
    a line that is no longer an object there (the file changed since) give their outline."""
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
                    value = loads(_cleaned(number, raw))
                except ValueError:
                    pass
            yield number, value if isinstance(value, dict) else wanted[1]
            wanted = next(pending, None)
    while wanted is not None:  # the file is shorter than it was
        yield wanted
        wanted = next(pending, None)


def loads(raw: bytes) -> Any:
    """One JSON value. orjson refuses a lone surrogate escape ("\\ud800"), which other tools
    write and read; such a line is parsed by the standard library instead, so it is shown
    (the surrogate becomes U+FFFD at the reader boundary) rather than dropped."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        if b"\\ud" not in raw.lower():
            raise
        return json.loads(raw)


def _looks_truncated(raw: bytes) -> bool:
    return raw.startswith((b"{", b"[")) and not raw.endswith((b"}", b"]"))


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
