"""StringWalk (model_text.py) reaches every string of the model: the reader boundary makes
them safe and redaction looks for secrets in them, so a text field the walk does not know
would reach pages unredacted. The session here is built from the model's own type hints,
with a distinct string in every field that can hold one: a field added to the model without
a place in the walk fails here."""
from __future__ import annotations

import dataclasses
import itertools
import types
import typing
from datetime import datetime
from typing import Any, Literal

from replay_site import model
from replay_site.model import Session
from replay_site.model_text import _IDENTITY, StringWalk

_numbers = itertools.count(1)


def _value(hint: Any, where: str, markers: dict[str, str]) -> Any:
    """A value of type `hint` holding a fresh marker string wherever a string can go."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is str or origin is Literal:
        marker = f"«{next(_numbers)}»"
        markers[marker] = where
        return marker
    if origin in (typing.Union, types.UnionType):
        if dict in {typing.get_origin(a) for a in args}:  # an argument tree: keys and nested values
            return {_value(str, where + " key", markers): [_value(str, where, markers)]}
        return _value(next(a for a in args if a is not type(None)), where, markers)
    if origin is list:
        return [_value(args[0], where, markers)]
    if origin is dict:
        return {_value(args[0], where + " key", markers): 1}
    if dataclasses.is_dataclass(hint):
        return _instance(hint, markers)
    if hint in (int, float):
        return 1
    if hint is bool:
        return False
    if hint is datetime:
        return datetime(2026, 1, 1)
    return None


def _instance(cls: type, markers: dict[str, str]) -> Any:
    hints = typing.get_type_hints(cls, vars(model))
    values = {}
    for field in dataclasses.fields(cls):
        if cls is Session and field.name == "children":
            continue  # one level of children is added by the test itself
        values[field.name] = _value(hints[field.name], f"{cls.__name__}.{field.name}", markers)
    return cls(**values)


def _seen(walk: StringWalk, session: Session) -> set[str]:
    seen: set[str] = set()
    walk.fix = lambda text: seen.add(text) or text
    walk.session(session)
    return seen


def test_every_string_field_of_the_model_is_walked():
    markers: dict[str, str] = {}
    session = _instance(Session, markers)
    child_markers: dict[str, str] = {}
    session.children = [_instance(Session, child_markers)]
    identity = {f"{cls.__name__}.{name}" for cls, names in _IDENTITY.items() for name in names}
    identity |= {"Session.redactions key", "Session.records key", "Step.child_session_ids", "Step.tier key", "Step.tier"}

    everything = _seen(StringWalk(str, identity=True, family=True), session)
    assert not [where for marker, where in {**markers, **child_markers}.items() if marker not in everything]

    text = _seen(StringWalk(str), session)
    assert not [where for marker, where in markers.items() if marker not in text and where not in identity]
    assert not [where for marker, where in markers.items() if marker in text and where in identity]
    assert not set(child_markers) & text  # children are redacted as sessions of their own
