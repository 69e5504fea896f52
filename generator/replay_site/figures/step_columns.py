"""The figures of a long session's steps kept as packed rows (StepColumns), not as an object
of each step: what a session streamed through a build holds of every step until its summary
and digest are made (build/source_passes.py).

A StepFigures of each step, its usage, cost and time took ~555 bytes a step: a 200,000-step
session's ~110 MiB of small objects, made a step at a time among the reading's own, so that
the heap they were freed from could not go back to the system (issue 20). Here a step is a
row of ~60 bytes in one bytearray, and the few values a row cannot hold (an odd type, a
number out of range) keep the step's StepFigures aside. Read back, a step is a light object
whose figures are made when asked for, so a Session whose steps are these gives the same
figures as its StepFigures did."""
from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from functools import cached_property
from typing import Any

from replay_site.figures.summary import CallFigures, StepFigures
from replay_site.model import Cost, Step, Usage

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)

# A row: the step's number, its time (microseconds since the epoch), flags, usage's six counts, cost in dollars,
# and the codes of kind, model, cost source and tool calls in the session's table of values.
_ROW = struct.Struct("<IqB6IdIIII")
_NUMBER, _TIME, _FLAGS, _USAGE, _USD, _KIND, _MODEL, _SOURCE, _CALLS = 0, 1, 2, 3, 9, 10, 11, 12, 13

# flags
_COLLAPSED, _ERROR, _TIMED, _USED, _COSTED, _PRICED = 1, 2, 4, 8, 16, 32


class StepColumns(Sequence):
    """The figures of one session's steps, told in order (`add`), numbered 1, 2, ...; a
    sequence of what StepFigures gave of each."""

    def __init__(self) -> None:
        self._rows = bytearray()
        self._count = 0
        self._values: list[Any] = []  # kinds, models, cost sources and calls' figures, by code
        self._codes: dict[Any, int] = {}
        self._failed: dict[int, int] = {}  # the failed calls of each calls' figures, by code
        self._rewards: dict[int, tuple[float | None, float | None]] = {}  # by step number: few steps have any
        self._children: dict[int, tuple[str, ...]] = {}
        self._odd: dict[int, StepFigures] = {}  # steps a row cannot hold
        self._shared: dict = {}  # StepFigures' memo for those
        # The row last asked for its usage, and that usage; its cost: the figures ask a step for
        # them up to three times in a row.
        self._usage_of: _StepRow | None = None
        self._usage: Usage | None = None
        self._cost_of: _StepRow | None = None
        self._cost: Cost | None = None

    def add(self, step: Step) -> None:
        at = self._count
        self._count += 1
        try:
            row = self._row(step) if step.number == at + 1 else None
        except (struct.error, TypeError, OverflowError):
            row = None
        if row is None:
            self._odd[at] = StepFigures(step, self._shared)
            self._rows += bytes(_ROW.size)
            return
        self._rows += row
        if step.reward is not None or step.cumulative_reward is not None:
            self._rewards[step.number] = (step.reward, step.cumulative_reward)
        if step.child_session_ids:
            self._children[step.number] = tuple(step.child_session_ids)

    def _row(self, step: Step) -> bytes | None:
        moment, usage, cost, collapsed = step.timestamp, step.usage, step.cost, step.collapsed
        if type(collapsed) is not bool:
            return None
        flags = (_COLLAPSED if collapsed else 0) | (_ERROR if step.error else 0)
        micros = 0
        if moment is not None:
            if type(moment) is not datetime or moment.tzinfo is not timezone.utc or moment.fold:
                return None
            micros = (moment - _EPOCH) // _MICROSECOND
            flags |= _TIMED
        counts = (0,) * 6
        if usage is not None:
            if type(usage) is not Usage:
                return None
            counts = (usage.input, usage.output, usage.cache_read, usage.cache_write_5m, usage.cache_write_1h, usage.reasoning)
            if any(type(count) is not int for count in counts):
                return None
            flags |= _USED
        usd, source = 0.0, None
        if cost is not None:
            if type(cost) is not Cost or (cost.usd is not None and type(cost.usd) is not float):
                return None
            flags |= _COSTED | (_PRICED if cost.usd is not None else 0)
            usd, source = cost.usd if cost.usd is not None else 0.0, cost.source
        calls = tuple((call.orphan, call.missing_result, call.is_error, call.child_session_id) for call in step.tool_calls)
        calls_code = self._codes.get(("calls", calls))
        if calls_code is None:
            figures = tuple(CallFigures(*each) for each in calls)
            calls_code = self._code(("calls", calls), figures)
            self._failed[calls_code] = sum(1 for call in figures if call.is_error)
        return _ROW.pack(step.number, micros, flags, *counts, usd, self._code(("kind", step.kind), step.kind),
                         self._code(("model", step.model), step.model), self._code(("source", source), source), calls_code)

    def _code(self, key: tuple, value: Any) -> int:
        code = self._codes.get(key)
        if code is None:
            code = self._codes[key] = len(self._values)
            self._values.append(value)
        return code

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, at):
        return _steps_at(self, range(self._count), at)

    def __iter__(self) -> Iterator[Any]:
        return self._steps(0, self._count)

    def _steps(self, start: int, stop: int) -> Iterator[Any]:
        rows = map(self._row_type, _ROW.iter_unpack(memoryview(self._rows)[start * _ROW.size:stop * _ROW.size]))
        if not self._odd:
            return rows
        return (self._odd.get(at, row) for at, row in zip(range(start, stop), rows))

    def _step(self, at: int) -> Any:
        return self._odd.get(at) or self._row_type(_ROW.unpack_from(self._rows, at * _ROW.size))

    @cached_property
    def _row_type(self) -> type:
        """The class of this session's rows read back: a tuple (made from the unpacked row in C,
        the figures asked for many times over every step), which finds its values here."""
        return type("StepRow", (_StepRow,), {"__slots__": (), "_of": self})


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


class _StepRow(tuple):
    """One step of StepColumns, its row unpacked: StepFigures' attributes, made when asked for."""

    __slots__ = ()
    _of: StepColumns

    @property
    def number(self) -> int:
        return self[_NUMBER]

    @property
    def kind(self) -> str:
        return self._of._values[self[_KIND]]

    @property
    def timestamp(self) -> datetime | None:
        return _EPOCH + self[_TIME] * _MICROSECOND if self[_FLAGS] & _TIMED else None

    @property
    def collapsed(self) -> bool:
        return bool(self[_FLAGS] & _COLLAPSED)

    @property
    def error(self) -> bool | None:
        return True if self[_FLAGS] & _ERROR else None

    @property
    def usage(self) -> Usage | None:
        if not self[_FLAGS] & _USED:
            return None
        of = self._of
        if of._usage_of is not self:
            of._usage_of, of._usage = self, Usage(*self[_USAGE:_USD])
        return of._usage

    @property
    def cost(self) -> Cost | None:
        flags = self[_FLAGS]
        if not flags & _COSTED:
            return None
        of = self._of
        if of._cost_of is not self:
            of._cost_of, of._cost = self, Cost(self[_USD] if flags & _PRICED else None, of._values[self[_SOURCE]])
        return of._cost

    @property
    def model(self) -> str | None:
        return self._of._values[self[_MODEL]]

    @property
    def reward(self) -> float | None:
        return self._of._rewards.get(self[_NUMBER], (None, None))[0]

    @property
    def cumulative_reward(self) -> float | None:
        return self._of._rewards.get(self[_NUMBER], (None, None))[1]

    @property
    def tool_calls(self) -> tuple[CallFigures, ...]:
        return self._of._values[self[_CALLS]]

    @property
    def child_session_ids(self) -> tuple[str, ...]:
        return self._of._children.get(self[_NUMBER], ())

    @property
    def failed_tool_calls(self) -> int:
        return self._of._failed[self[_CALLS]]

    @property
    def error_count(self) -> int:
        return self._of._failed[self[_CALLS]] + (1 if self[_FLAGS] & _ERROR else 0)
