"""The spool: sessions read in a build's first pass wait on disk for its second, one file
per source, so that a build reads each log once. Each session is spooled as its head (the
session without its steps and children, with what its pages need from all of its steps,
worked out while it was whole) followed by its steps a page at a time (paging.py): the
second pass then holds one page of steps, however long the session."""
from __future__ import annotations

import copyreg
import dataclasses
import pickle
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from replay_site import model
from replay_site.model import Session, Step
from replay_site.pages import paging


def write(sessions: Iterable[tuple[Session, Any]], path: Path) -> str | None:
    """Spool each (session, what its pages need from all its steps) in the order given.
    Pass 2 takes the sessions from here rather than reading the log again: cheaper than
    parsing, and the very bytes the summaries came from however the log grew meanwhile."""
    try:
        with path.open("wb") as stream:
            for session, whole in sessions:
                pages = paging.pages_of(session.steps)
                _dump((dataclasses.replace(session, steps=[], children=[]), whole, len(pages)), stream)
                for steps in pages:
                    _dump(steps, stream)
    except (OSError, RecursionError, pickle.PicklingError, TypeError, AttributeError):
        path.unlink(missing_ok=True)
        return None  # pass 2 reads the log again, and checks it saw the same bytes
    return str(path)


def _dump(value: object, stream: BinaryIO) -> None:
    """One pickle of its own, so that nothing read back holds on to what came before it."""
    pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _MODEL_REDUCERS
    pickler.dump(value)


def _reduce_model(value: object) -> tuple:
    """A model object as its class and its values in `__slots__` order, which is the order of
    the dataclass's __init__ (_init_takes_slots): unpickling calls that __init__, one
    Python call per object, where copyreg's default would ask the dataclass for its fields
    and set each slot in turn."""
    cls = type(value)
    return cls, tuple(getattr(value, name) for name in cls.__slots__)


def _init_takes_slots(cls: type) -> bool:
    fields = dataclasses.fields(cls)
    return (all(field.init for field in fields) and tuple(field.name for field in fields) == cls.__slots__
            and not hasattr(cls, "__post_init__"))


# A class whose __init__ does not take every slot keeps the dataclass's own pickling.
_MODEL_REDUCERS = {**copyreg.dispatch_table, **{
    cls: _reduce_model for cls in vars(model).values()
    if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == model.__name__ and _init_takes_slots(cls)}}


class Pages:
    """The pages of steps of one spooled session, read from the spool as they are asked for."""

    def __init__(self, stream: BinaryIO, count: int):
        self._stream = stream
        self._left = count

    def __iter__(self) -> Iterator[list[Step]]:
        while self._left:
            self._left -= 1
            yield pickle.load(self._stream)

    def skip_unread(self) -> None:
        for _ in self:
            pass


def read(spooled: str) -> Iterator[tuple[Session, Any, Pages]]:
    """The sessions of one spool file in the order written, each as (the session without its
    steps and children, what its pages need from all its steps, its pages of steps). A
    session's pages are read as they are iterated, before the next session is asked for
    (those left unread are passed over). The file is removed: each is read once."""
    path = Path(spooled)
    try:
        with path.open("rb") as stream:
            while True:
                try:
                    head, whole, count = pickle.load(stream)
                except EOFError:
                    return
                pages = Pages(stream, count)
                yield head, whole, pages
                pages.skip_unread()
    finally:
        path.unlink(missing_ok=True)
