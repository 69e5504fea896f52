"""The figures of a long session's steps kept as packed rows (StepColumns), not as an object
of each step: what a session streamed through a build holds of every step until its summary
and digest are made (build/source_passes.py).

A StepFigures of each step, its usage, cost and time took ~555 bytes a step: a 200,000-step
session's ~110 MiB of small objects, made a step at a time among the reading's own, so that
the heap they were freed from could not go back to the system (issue 20). Here a step takes
42 bytes in four arrays: its usage's counts, its time, its dollars, and the number of its
profile (kind, model, calls' figures, flags: a session has a few dozen). The few values the
arrays cannot hold (an odd type, a count out of range, a time not in UTC) keep the step's
StepFigures aside.

The summary and the digest read every step some twenty times over (the usage, the cost, the
charts, the timeline), so a step is read back cheaply: its number, made in C as an instance
of its profile's class, which holds the profile's figures as class attributes; only its
time, usage and priced cost are made when asked for. A Session whose steps are these gives
the same figures as its StepFigures did."""
from __future__ import annotations

import struct
from array import array
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from replay_site.figures.summary import CallFigures, StepFigures, call_figures, says_something
from replay_site.model import Cost, Step, Usage

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)

_USAGE = struct.Struct("<6I")  # a step's usage: its six counts
# Past this many profiles (a session whose steps are all different), a step keeps its StepFigures.
MAX_PROFILES = 1024


class StepColumns(Sequence):
    """The figures of one session's steps, told in order (`add`), numbered 1, 2, ...; a
    sequence of what StepFigures gave of each."""

    def __init__(self) -> None:
        self._usages = bytearray()  # by position, each _USAGE.size long
        self._times = array("q")  # microseconds since the epoch
        self._dollars = array("d")
        self._profile_of = array("H")
        self._profiles: list[type] = [_StepRow]  # the first stands in for the steps kept aside
        self._profile_codes: dict[tuple, int] = {}
        self._rewards: dict[int, tuple[float | None, float | None]] = {}  # by step number: few steps have any
        self._children: dict[int, tuple[str, ...]] = {}
        self._odd: dict[int, StepFigures] = {}  # steps a row cannot hold, by position
        self._shared: dict = {}  # StepFigures' memo for those
        # The row last asked for its usage, and that usage; its cost: the figures ask a step for
        # them up to three times in a row.
        self._usage_of: _StepRow | None = None
        self._usage: Usage | None = None
        self._cost_of: _StepRow | None = None
        self._cost: Cost | None = None

    def add(self, step: Step) -> None:
        at = len(self._profile_of)
        try:
            packed = self._packed(step) if step.number == at + 1 else None
        except (struct.error, TypeError, OverflowError):
            packed = None
        profile = self._profile(packed[0]) if packed is not None else None
        if profile is None:
            self._odd[at] = StepFigures(step, self._shared)
            packed, profile = (None, bytes(_USAGE.size), 0, 0.0), 0
        _, usage, micros, usd = packed
        self._usages += usage
        self._times.append(micros)
        self._dollars.append(usd)
        self._profile_of.append(profile)
        if profile == 0:
            return
        if step.reward is not None or step.cumulative_reward is not None:
            self._rewards[step.number] = (step.reward, step.cumulative_reward)
        if step.child_session_ids:
            self._children[step.number] = tuple(step.child_session_ids)

    def _packed(self, step: Step) -> tuple[tuple, bytes, int, float] | None:
        """The step's profile, usage, time and dollars as the arrays hold them; None when they cannot."""
        moment, usage, cost, collapsed = step.timestamp, step.usage, step.cost, step.collapsed
        if type(collapsed) is not bool:
            return None
        micros = 0
        if moment is not None:
            if type(moment) is not datetime or moment.tzinfo is not timezone.utc or moment.fold:
                return None
            micros = (moment - _EPOCH) // _MICROSECOND
        counts = (0,) * 6
        if usage is not None:
            if type(usage) is not Usage:
                return None
            counts = (usage.input, usage.output, usage.cache_read, usage.cache_write_5m, usage.cache_write_1h, usage.reasoning)
            if any(type(count) is not int for count in counts):
                return None
        usd, source = 0.0, None
        if cost is not None:
            if type(cost) is not Cost or (cost.usd is not None and type(cost.usd) is not float):
                return None
            usd, source = cost.usd if cost.usd is not None else 0.0, cost.source
        calls = tuple(call_figures(call) for call in step.tool_calls)
        extras = step.reward is not None or step.cumulative_reward is not None or bool(step.child_session_ids)
        partial = (usage is not None and usage.partial is True, cost is not None and cost.partial is True,
                   cost.tier if cost is not None and type(cost.tier) is str else "")
        profile = (step.kind, step.model, calls, collapsed, bool(step.error), says_something(step), moment is not None,
                   usage is not None, cost is not None, cost is not None and cost.usd is not None, source, extras, partial)
        return profile, _USAGE.pack(*counts), micros, usd

    def _profile(self, key: tuple) -> int | None:
        code = self._profile_codes.get(key)
        if code is None and len(self._profiles) < MAX_PROFILES:
            code = self._profile_codes[key] = len(self._profiles)
            self._profiles.append(_profile_type(self, *key))
        return code

    def __len__(self) -> int:
        return len(self._profile_of)

    def __getitem__(self, at):
        return _steps_at(self, range(len(self)), at)

    def __iter__(self) -> Iterator[Any]:
        return self._steps(0, len(self))

    def _steps(self, start: int, stop: int) -> Iterator[Any]:
        rows = map(type.__call__, map(self._profiles.__getitem__, self._profile_of[start:stop]), range(start + 1, stop + 1))
        if not self._odd:
            return rows
        return (self._odd.get(at, row) for at, row in zip(range(start, stop), rows))

    def _step(self, at: int) -> Any:
        return self._odd.get(at) or self._profiles[self._profile_of[at]](at + 1)


def _profile_type(of: StepColumns, kind: str, model: str | None, calls: tuple, collapsed: bool, error: bool, said: bool,
                  timed: bool, used: bool, costed: bool, priced: bool, source: str | None, extras: bool,
                  partial: tuple[bool, bool, str] = (False, False, "")) -> type:
    """The class of the rows of one profile: its figures as class attributes, and as None those
    its steps have none of."""
    figures = tuple(CallFigures(*each) for each in calls)
    failed = sum(1 for call in figures if call.is_error and not call.declined)
    declined = sum(1 for call in figures if call.declined)
    attributes: dict[str, Any] = {
        "__slots__": (), "_of": of, "_source": source, "kind": kind, "model": model, "collapsed": collapsed,
        "error": True if error else None, "text": "…" if said else "", "tool_calls": figures, "failed_tool_calls": failed,
        "error_count": failed + error, "declined_calls": declined, "calls_made": sum(1 for call in figures if not call.orphan), "_partial": partial,
    }
    if not timed:
        attributes["timestamp"] = None
    if not used:
        attributes["usage"] = None
    if not priced:
        attributes["cost"] = Cost(None, source) if costed else None
    if not extras:
        attributes |= {"reward": None, "cumulative_reward": None, "child_session_ids": ()}
    return type("StepRow", (_StepRow,), attributes)


class _StepSlice(Sequence):
    """Some of StepColumns' steps, in a row: a slice of them read back only as it is read
    (the cost chart cuts a session's steps into groups)."""

    def __init__(self, of: StepColumns, positions: range) -> None:
        self._of, self._positions = of, positions

    def __len__(self) -> int:
        return len(self._positions)

    def __getitem__(self, at):
        return _steps_at(self._of, self._positions, at)

    def __iter__(self) -> Iterator[Any]:
        if self._positions.step == 1:
            return self._of._steps(self._positions.start, self._positions.stop)
        return map(self._of._step, self._positions)


def _steps_at(of: StepColumns, positions: range, at: int | slice) -> Any:
    if isinstance(at, slice):
        return _StepSlice(of, positions[at])
    return of._step(positions[at])


class _StepRow(int):
    """One step of StepColumns: its number, whose class (_profile_type) holds the rest."""

    __slots__ = ()
    _of: StepColumns
    _source: str | None
    _partial: tuple[bool, bool, str]  # its usage's and cost's `partial`, its cost's tier

    number = property(int)

    @property
    def timestamp(self) -> datetime | None:
        return _EPOCH + self._of._times[self - 1] * _MICROSECOND

    @property
    def usage(self) -> Usage | None:
        of = self._of
        if of._usage_of is not self:
            of._usage_of, of._usage = self, Usage(*_USAGE.unpack_from(of._usages, (self - 1) * _USAGE.size), self._partial[0])
        return of._usage

    @property
    def cost(self) -> Cost | None:
        of = self._of
        if of._cost_of is not self:
            of._cost_of, of._cost = self, Cost(of._dollars[self - 1], self._source, *self._partial[1:])
        return of._cost

    @property
    def reward(self) -> float | None:
        return self._of._rewards.get(self, (None, None))[0]

    @property
    def cumulative_reward(self) -> float | None:
        return self._of._rewards.get(self, (None, None))[1]

    @property
    def child_session_ids(self) -> tuple[str, ...]:
        return self._of._children.get(self, ())
