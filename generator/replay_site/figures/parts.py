"""A part of a session to share: a range of its steps, or the window around its first
failure that mattered. Steps keep their numbers, so "#47" means the same step in the part."""
from __future__ import annotations

import dataclasses
import re

from replay_site.figures.failures import what_went_wrong
from replay_site.model import Session

# The window around a failure: a few steps that led to it, and room for what came after.
BEFORE_ERROR = 5
AFTER_ERROR = 10

_RANGE = re.compile(r"^\s*(\d+)\s*(?:[-–:]\s*(\d+))?\s*$")


def parse_steps(text: str) -> range:
    """"40-60" (both included) or "47"; ValueError for anything else."""
    found = _RANGE.match(text)
    if not found:
        raise ValueError(f"--steps takes FIRST-LAST (like 40-60), not {text!r}")
    first = int(found.group(1))
    last = int(found.group(2) or first)
    if first < 1 or last < first:
        raise ValueError(f"--steps {text}: the range must start at 1 or later and not end before it starts")
    return range(first, last + 1)


def around_error(session: Session) -> range:
    """The steps around the failure that mattered (the card's); ValueError when none did."""
    wrong = what_went_wrong(session)
    if wrong is None:
        raise ValueError(f"session {session.id} has no failure to export the window around")
    if wrong.first is None:
        found = [f"the user declined #{each.step}" for each in wrong.refusals] + [f"a probe missed at #{each.step}" for each in wrong.probes]
        raise ValueError(f"session {session.id} has no failure that mattered ({'; '.join(found)}): name the steps with --steps")
    step = wrong.first.step
    return range(max(1, step - BEFORE_ERROR), min(len(session.steps), step + AFTER_ERROR) + 1)


def session_part(session: Session, steps: range) -> Session:
    """The session with only `steps` (cut to the steps it has) and none of its children;
    ValueError when the range holds none of its steps."""
    kept = [step for step in session.steps if step.number in steps]
    if not kept:
        raise ValueError(f"session {session.id} has steps 1-{len(session.steps)}, none in {steps.start}-{steps.stop - 1}")
    started = next((step.timestamp for step in kept if step.timestamp), session.started_at)
    ended = next((step.timestamp for step in reversed(kept) if step.timestamp), session.ended_at)
    return dataclasses.replace(session, steps=kept, children=[], started_at=started, ended_at=ended)
