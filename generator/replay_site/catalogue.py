"""The secret scanner's rule catalogue (kingfisher-secret-scanner: redact/detect.py scans with
it), loaded once per process, or by a process of its own for a build that reads in its own
process (start_scanner). Standard library and kingfisher only: the console entry starts that
process the moment it knows a few logs changed, before the build's own imports; the build
asks it, meanwhile, only before publishing (deferred_scans)."""
from __future__ import annotations

import os
import pickle
import select
import threading
from contextlib import contextmanager
from functools import lru_cache, partial
from typing import Any, Iterator, NamedTuple

from replay_site import HelperProcess


class ScannerUnavailable(RuntimeError):
    """Redaction was asked for but its catalogue cannot load: stop rather than publish secrets."""


class FoundLater(Exception):
    """The catalogue found something in a text put off while it loaded: what was made
    meanwhile assumed it found nothing, and must be made again."""


_SCANNER_LOCK = threading.Lock()
SCANNING_PROCESS_NAME = b"replay-scanner"
_PROCESS: ScanningProcess | None = None  # start_scanner's, while this process may ask it
# The texts put off while the catalogue loads (deferred_scans), or None when none may be.
_DEFERRED: list[bytes] | None = None
_DEFERRED_BYTES = 0
# Put off no more than this: past it, scanning waits for the catalogue, so that what is held
# meanwhile stays small whatever the machine's speed.
DEFER_AT_MOST = 8 << 20
_PIPE_BYTES = 1 << 20
# A text this long (a 300 MB tool output) is scanned here, and the scanning process ended:
# sent there, it would be held by both processes at once.
SCANNED_HERE_FROM = 16 << 20


@lru_cache(maxsize=1)
def _load_scanner():
    try:
        import kingfisher_sdk

        return kingfisher_sdk.Scanner(kingfisher_sdk.Rules(), base64=True)
    except (ImportError, OSError, RuntimeError) as exc:
        raise ScannerUnavailable(f"secret redaction needs kingfisher-secret-scanner, which could not be loaded ({exc}); "
                                 "install it, or pass --no-redact to publish the logs as they are") from None


def load_scanner():
    """The catalogue, compiled once per process and only when a session is redacted: loading
    it costs a few seconds the first time (then kingfisher's own disk cache, ~0.3 s)."""
    with _SCANNER_LOCK:
        return _load_scanner()


def release_scanner() -> None:
    """Drop this process's catalogue, and end its scanning process, for a process done
    redacting: the ~25 MiB go back to the system (the process's at once, this process's at
    the next malloc_trim: build.task_memory.release_freed_memory). Asked for again, it loads
    again (~0.3 s from kingfisher's disk cache)."""
    global _PROCESS
    with _SCANNER_LOCK:
        _load_scanner.cache_clear()
    if _PROCESS is not None:
        _PROCESS.stop()
        _PROCESS = None


def start_scanner() -> None:
    """Have a process of its own load the catalogue, for a process about to redact: it loads
    while this one imports, reads and prices, and scans for it (inside deferred_scans, what
    this one asks before it is loaded waits for confirm_deferred). Not a thread: kingfisher's
    loading takes and gives back the GIL all along, so beside a busy thread it took 0.5-0.7 s
    of wall instead of 0.3 and slowed the thread by half (a loop of 0.12 s of CPU: 0.27 s)."""
    global _PROCESS
    if _PROCESS is None and hasattr(os, "fork"):
        _PROCESS = ScanningProcess()


class _Finding(NamedTuple):
    """What redaction reads of a kingfisher finding, as the scanning process sends it."""

    rule_id: str
    location: dict[str, int]
    secret: str
    is_base64_encoded: bool


class ScanningProcess(HelperProcess):
    """A forked process that loads the catalogue, says so ('R', or '?' when it cannot), then
    scans what it is sent, one pickled request at a time: ("scan", text) -> its visible
    findings, ("any", texts) -> whether it finds anything in one of them. It ends when this
    process closes its side, or by a kill when this one ends it or exits."""

    def __init__(self) -> None:
        questions, ask = os.pipe()
        answer, answers = os.pipe()
        _widen(ask, answers)
        super().__init__(SCANNING_PROCESS_NAME, partial(_serve, questions, answers), questions, answers)
        self.requests, self.replies = os.fdopen(ask, "wb"), os.fdopen(answer, "rb")
        self.streams = [self.requests, self.replies]
        self.state = b""  # b"R" once loaded, b"?" when it cannot scan

    def loaded(self, wait: bool) -> bool:
        """Whether the catalogue is loaded there (waiting for it to be, if `wait`); false for good
        when it could not load, or the process is gone."""
        if not self.state and (wait or select.select([self.replies], [], [], 0)[0]):
            self.state = self.replies.read(1) or b"?"
        return self.state == b"R"

    def ask(self, kind: str, payload: Any) -> Any:
        """The answer to one request; None when the process cannot answer."""
        if not self.loaded(wait=True):
            return None
        try:
            pickle.dump((kind, payload), self.requests, protocol=pickle.HIGHEST_PROTOCOL)
            self.requests.flush()
            return pickle.load(self.replies)
        except (OSError, EOFError, pickle.UnpicklingError):
            self.state = b"?"
            return None

    def forget(self) -> None:
        super().forget()
        self.state = b"?"


def _widen(*pipes: int) -> None:
    """A text in one write, not a 64 KiB piece per switch to the other process (Linux only)."""
    try:
        import fcntl

        for end in pipes:
            fcntl.fcntl(end, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass


def _serve(questions: int, answers: int) -> None:
    """The scanning process's work (ScanningProcess)."""
    with os.fdopen(questions, "rb") as inbox, os.fdopen(answers, "wb") as outbox:
        try:
            scanner = _load_scanner()
        except ScannerUnavailable:
            outbox.write(b"?")  # this process loads it, and says why it cannot
            return
        outbox.write(b"R")
        outbox.flush()
        while True:
            try:
                kind, payload = pickle.load(inbox)
            except (EOFError, pickle.UnpicklingError):
                return
            if kind == "scan":
                answer: Any = [_Finding(f.rule_id, f.location, f.secret, f.is_base64_encoded)
                               for f in scanner.scan(payload) if f.visible]
            else:
                answer = any(finding.visible for text in payload for finding in scanner.scan(text))
            pickle.dump(answer, outbox, protocol=pickle.HIGHEST_PROTOCOL)
            outbox.flush()


def scan(data: bytes) -> list[Any]:
    """The catalogue's visible findings in `data` (each with rule_id, location, secret and
    is_base64_encoded); none while start_scanner's process loads it, inside deferred_scans,
    where the text waits for confirm_deferred()."""
    global _DEFERRED_BYTES
    if _PROCESS is not None and len(data) >= SCANNED_HERE_FROM:
        release_scanner()
    if _PROCESS is None:
        return _visible_findings(data)
    if _DEFERRED is not None and not _PROCESS.loaded(wait=False) and _DEFERRED_BYTES + len(data) <= DEFER_AT_MOST:
        _DEFERRED.append(data)
        _DEFERRED_BYTES += len(data)
        return []
    found = _PROCESS.ask("scan", data)
    return _visible_findings(data) if found is None else found


@contextmanager
def deferred_scans() -> Iterator[None]:
    """While start_scanner's process loads the catalogue, a build reading in this process goes
    on as if it found nothing in the texts it is asked about (it finds nothing in most), and
    confirm_deferred() asks it before anything is kept or published. After one appended turn
    the build then waits for the loading at its end, if at all, instead of before redacting
    the session."""
    global _DEFERRED, _DEFERRED_BYTES
    _DEFERRED, _DEFERRED_BYTES = [], 0
    try:
        yield
    finally:
        _DEFERRED, _DEFERRED_BYTES = None, 0


def confirm_deferred() -> None:
    """Scan the texts put off so far (waiting for the catalogue); FoundLater when it finds
    anything in one of them."""
    global _DEFERRED_BYTES
    if not _DEFERRED:
        return
    pending = list(_DEFERRED)
    _DEFERRED.clear()
    _DEFERRED_BYTES = 0
    found = _PROCESS.ask("any", pending) if _PROCESS is not None else None
    if found is None:  # the process could not answer: this process's own catalogue
        found = any(_visible_findings(data) for data in pending)
    if found:
        raise FoundLater


def _visible_findings(data: bytes) -> list[Any]:
    return [finding for finding in load_scanner().scan(data) if finding.visible]


def _forget_deferred() -> None:
    """A process forked from the build neither asks its scanning process nor puts off texts."""
    global _DEFERRED, _DEFERRED_BYTES, _PROCESS
    _DEFERRED, _DEFERRED_BYTES = None, 0
    if _PROCESS is not None:
        _PROCESS.forget()
        _PROCESS = None


os.register_at_fork(after_in_child=_forget_deferred)


def scanner_version() -> str:
    import kingfisher_sdk

    return kingfisher_sdk.__version__
