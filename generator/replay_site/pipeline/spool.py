"""The spool: sessions read in a build's first pass wait on disk for its second, one file
per source, so that a build reads each log once. Each session is spooled as its steps a
page at a time (paging.py), then its head (the session without its steps and children,
with what its pages need from all of its steps): the second pass then holds one page of
steps, however long the session, and a reader can spool pages before the session ends."""
from __future__ import annotations

import copyreg
import dataclasses
import operator
import pickle
import struct
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from replay_site import model
from replay_site.model import Session, Step
from replay_site.pages import paging


def write(sessions: Iterable[tuple[Session, Any]], path: Path) -> str | None:
    """Spool each (session, what its pages need from all its steps) in the order given.
    Pass 2 takes the sessions from here rather than reading the log again: cheaper than
    parsing, and the very bytes the summaries came from however the log grew meanwhile."""
    writer = SpoolWriter(path)
    try:
        for session, whole in sessions:
            for steps in paging.pages_of(session.steps):
                writer.page(steps)
            writer.session(dataclasses.replace(session, steps=[], children=[]), whole)
        return writer.close()
    except (OSError, RecursionError, pickle.PicklingError, TypeError, AttributeError):
        writer.abandon()
        return None  # pass 2 reads the log again, and checks it saw the same bytes


class SpoolWriter:
    """One spool file, written as a reader makes it: a session's pages of steps as they are
    cut, then its head (known only once every step is seen), then, at the end, the index of
    where each session's head and pages are, and the index's own offset in the last 8 bytes."""

    def __init__(self, path: Path):
        self._path = path
        self._stream = path.open("wb")
        self._pages: list[int] = []
        self._sessions: list[tuple[int, tuple[int, ...]]] = []

    def page(self, steps: list[Step]) -> None:
        self._pages.append(self._stream.tell())
        _dump(steps, self._stream)

    def session(self, head: Session, whole: Any) -> None:
        """Close the session whose pages were given since the last one (a session without
        steps has one empty page: paging.pages_of)."""
        if not self._pages:
            self.page([])
        self._sessions.append((self._stream.tell(), tuple(self._pages)))
        _dump((head, whole), self._stream)
        self._pages = []

    def close(self) -> str:
        at = self._stream.tell()
        _dump(self._sessions, self._stream)
        self._stream.write(_INDEX_AT.pack(at))
        self._stream.close()
        return str(self._path)

    def abandon(self) -> None:
        try:
            self._stream.close()
        except OSError:  # what the failed write left buffered fails again (a full disk, a size limit)
            pass
        self._path.unlink(missing_ok=True)


_INDEX_AT = struct.Struct("<Q")


def _dump(value: object, stream: BinaryIO) -> None:
    """One pickle of its own, so that nothing read back holds on to what came before it."""
    pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _MODEL_REDUCERS
    pickler.dump(value)


def _reducer(cls: type) -> Callable[[object], tuple]:
    """A model object as its class and its values in `__slots__` order, which is the order of
    the dataclass's __init__ (_init_takes_slots): unpickling calls that __init__, one
    Python call per object, where copyreg's default would ask the dataclass for its fields
    and set each slot in turn. The values come from one attrgetter (C), not a generator of
    getattr calls (a fifth of a spool's pickling)."""
    values = operator.attrgetter(*cls.__slots__)
    if len(cls.__slots__) == 1:
        return lambda value: (cls, (values(value),))
    return lambda value: (cls, values(value))


def _init_takes_slots(cls: type) -> bool:
    fields = dataclasses.fields(cls)
    return (all(field.init for field in fields) and tuple(field.name for field in fields) == cls.__slots__
            and not hasattr(cls, "__post_init__"))


# A class whose __init__ does not take every slot keeps the dataclass's own pickling.
_MODEL_REDUCERS = {**copyreg.dispatch_table, **{
    cls: _reducer(cls) for cls in vars(model).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == model.__name__ and _init_takes_slots(cls)}}


class Pages:
    """Some pages of steps of one spooled session, read from the spool as they are asked for."""

    def __init__(self, stream: BinaryIO, offsets: tuple[int, ...]):
        self._stream = stream
        self._offsets = offsets

    def __len__(self) -> int:
        return len(self._offsets)

    def __iter__(self) -> Iterator[list[Step]]:
        for offset in self._offsets:
            self._stream.seek(offset)
            yield pickle.load(self._stream)


def _index(stream: BinaryIO) -> list[tuple[int, tuple[int, ...]]]:
    stream.seek(-_INDEX_AT.size, 2)
    (at,) = _INDEX_AT.unpack(stream.read(_INDEX_AT.size))
    stream.seek(at)
    return pickle.load(stream)


def _head(stream: BinaryIO, offset: int) -> tuple[Session, Any]:
    stream.seek(offset)
    return pickle.load(stream)


def read(spooled: str) -> Iterator[tuple[Session, Any, Pages]]:
    """The sessions of one spool file in the order written, each as (the session without its
    steps and children, what its pages need from all its steps, its pages of steps). A
    session's pages are read as they are iterated, before the next session is asked for. The
    file is removed after: each is read once."""
    path = Path(spooled)
    try:
        with path.open("rb") as stream:
            for head_at, pages in _index(stream):
                head, whole = _head(stream, head_at)
                yield head, whole, Pages(stream, pages)
    finally:
        path.unlink(missing_ok=True)
