"""The spool: sessions read in a build's first pass wait on disk for its second, one pickle
per source, so that a build reads each log once and holds one family in memory at a time."""
from __future__ import annotations

import copyreg
import pickle
from dataclasses import is_dataclass
from pathlib import Path

from . import model
from .model import Session


def write(sessions: list[Session], path: Path) -> str | None:
    """Pass 2 takes the sessions from here rather than reading the log again: cheaper than
    parsing, and the very bytes the summaries came from however the log grew meanwhile."""
    try:
        with path.open("wb") as stream:
            pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dispatch_table = _MODEL_REDUCERS
            pickler.dump(sessions)
    except (OSError, RecursionError, pickle.PicklingError, TypeError, AttributeError):
        path.unlink(missing_ok=True)
        return None  # pass 2 reads the log again, and checks it saw the same bytes
    return str(path)


def _rebuilt(cls: type, fields: tuple) -> object:
    """A model object from the spool, its attributes set one by one as __init__ would: the
    default unpickling fills the instance __dict__ directly, which costs CPython 3.11 its
    fast attribute access, and the templates read attributes millions of times (a
    10,000-step page rendered 3× slower from an unpickled session)."""
    rebuilt = cls.__new__(cls)
    for name, value in fields:
        object.__setattr__(rebuilt, name, value)
    return rebuilt


def _reduce_model(value: object) -> tuple:
    return _rebuilt, (type(value), tuple(vars(value).items()))


_MODEL_REDUCERS = {**copyreg.dispatch_table, **{cls: _reduce_model for cls in vars(model).values()
                                                if isinstance(cls, type) and is_dataclass(cls) and cls.__module__ == model.__name__}}


def read(spooled: str) -> list[Session]:
    """The sessions of one spool file, which is removed: each is read once."""
    path = Path(spooled)
    with path.open("rb") as stream:
        sessions = pickle.load(stream)
    path.unlink()
    return sessions
