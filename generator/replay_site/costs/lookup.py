"""Price lookups in a short-lived process of its own, so that no process of a build imports
genai-prices and pydantic (~10 MiB of allocations, held to the end by the build process and
shared by every worker forked from it, for a few lookups at the start). The process is
forked, looks the model strings up (costs/table.look_up_here), sends the plain answers back
pickled and exits; this process adds them to the price memo. A build starts one before its
workers (ahead): it reads the heads of the logs to read, where the models are named, and
the workers are forked with its answers in their memo. A model none of those named is looked
up in a process of its own when met. Where no process can be forked, or it fails, the
lookup runs here, as it always did: the costs are the same either way."""
from __future__ import annotations

import os
import pickle
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

from replay_site import HelperProcess

LOOKUP_PROCESS_NAME = b"replay-prices"
_AHEAD: LookupProcess | None = None  # the build's lookup ahead (looking_up_ahead), until its answer is taken


class LookupProcess(HelperProcess):
    """A forked process that runs `work` (no argument) and sends back its pickled result; it
    ends then, or by a kill when this process ends it or exits first."""

    def __init__(self, work: Callable[[], Any]) -> None:
        answer, answers = os.pipe()
        super().__init__(LOOKUP_PROCESS_NAME, partial(_send, work, answers), answers)
        self.replies = os.fdopen(answer, "rb")
        self.streams = [self.replies]

    def answer(self) -> Any:
        """`work`'s result (waiting for it), or None when the process could not give it."""
        try:
            return pickle.load(self.replies)
        except (OSError, EOFError, pickle.UnpicklingError):
            return None
        finally:
            self.stop()


def _send(work: Callable[[], Any], answers: int) -> None:
    """The lookup process's work (LookupProcess)."""
    with os.fdopen(answers, "wb") as outbox:
        pickle.dump(work(), outbox, protocol=pickle.HIGHEST_PROTOCOL)


def looked_up(work: Callable[[], dict], fallback: Callable[[], dict]) -> dict:
    """`work`'s answer from a process of its own; `fallback`'s, run here, where that fails."""
    if hasattr(os, "fork"):
        found = LookupProcess(work).answer()
        if isinstance(found, dict):
            return found
    return fallback()


@contextmanager
def looking_up_ahead(work: Callable[[], dict], wanted: bool) -> Iterator[None]:
    """While a build runs: `work` (the lookups of the models its logs' heads name) in a process
    of its own, started now if `wanted`, its answer taken by answer_ahead(); ended with the
    build, answered or not."""
    global _AHEAD
    if wanted and hasattr(os, "fork"):
        _AHEAD = LookupProcess(work)
    try:
        yield
    finally:
        if _AHEAD is not None:
            _AHEAD.stop()
            _AHEAD = None


def answer_ahead() -> dict:
    """The lookup ahead's answers (waiting for them), once; {} when there is none."""
    global _AHEAD
    ahead, _AHEAD = _AHEAD, None
    found = ahead.answer() if ahead is not None else None
    return found if isinstance(found, dict) else {}


def _forget_ahead() -> None:
    """A process forked from the build (a worker) neither waits for the lookup ahead nor ends it."""
    global _AHEAD
    if _AHEAD is not None:
        _AHEAD.forget()
        _AHEAD = None


os.register_at_fork(after_in_child=_forget_ahead)


def named_in_heads(paths: list[Path]) -> dict[str, None]:
    """The model strings the heads of the logs at `paths` name (the strings under a `model`
    key, as every format we read names them): a log's first 256 KiB, less of each when there
    are many (a log names its models mostly in its first few KiB; one met later is looked up
    then). What is not a model, or not in that log after all, costs only the lookup's time."""
    within = max(_NAMED_AT_LEAST, min(_NAMED_WITHIN, _NAMED_IN_ALL // max(len(paths), 1)))
    named: dict[str, None] = {}
    for path in paths:
        named.update(_named_in(path, within))
    return named


def _named_in(path: Path, within: int) -> dict[str, None]:
    try:
        with open(path, "rb") as stream:
            lines = stream.read(within).split(b"\n")[:-1]
    except (OSError, TypeError):  # gone, or an object in a store (a UPath): looked up when met
        return {}
    named: dict[str, None] = {}
    for line in lines:
        if b'"model"' not in line:  # most lines (a tool's output, a prompt): not parsed
            continue
        try:
            _models_in(orjson.loads(line), named, 0)
        except orjson.JSONDecodeError:
            continue
    return named


_NAMED_WITHIN = 256 << 10  # bytes of a log's head, at most
_NAMED_AT_LEAST = 16 << 10
_NAMED_IN_ALL = 16 << 20  # of all the logs' heads


def _models_in(value: Any, named: dict[str, None], depth: int) -> None:
    if depth > 4:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "model" and isinstance(item, str) and len(named) < 8:
                named[item] = None
            else:
                _models_in(item, named, depth + 1)
