"""The secret scanner's rule catalogue (kingfisher-secret-scanner: redact/detect.py scans with
it), loaded once per process. Standard library and kingfisher only: after one appended turn
the console entry has it loaded by a process of its own (start_scanner_process) the moment it
knows a few logs changed, before the build's own imports; the build asks it, meanwhile, only
before publishing (deferred_scans)."""
from __future__ import annotations

import atexit
import os
import pickle
import signal
import threading
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Iterator


class ScannerUnavailable(RuntimeError):
    """Redaction was asked for but its catalogue cannot load: stop rather than publish secrets."""


_SCANNER_LOCK = threading.Lock()
_STARTED = False  # whether start_scanner() ran in this process
_LOADED = threading.Event()  # the loading start_scanner() began has ended (loaded or failed)
LOADING_PROCESS_NAME = b"replay-scanner"
_PROCESS: _LoadingProcess | None = None  # the process start_scanner_process() forked, until asked
# The texts put off while the catalogue loads (deferred_scans), or None when none may be.
_DEFERRED: list[bytes] | None = None
_DEFERRED_BYTES = 0
# Put off no more than this: past it, scanning waits for the catalogue, so that what is held
# meanwhile stays small whatever the machine's speed.
DEFER_AT_MOST = 8 << 20


class FoundLater(Exception):
    """The catalogue found something in a text put off while it loaded: what was made
    meanwhile assumed it found nothing, and must be made again."""


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
    """Drop this process's catalogue, for a process done redacting: its ~25 MiB go back to
    the system at the next malloc_trim (build.task_memory.release_freed_memory). Asked for again, it
    loads again (~0.3 s from kingfisher's disk cache)."""
    global _STARTED
    with _SCANNER_LOCK:
        _load_scanner.cache_clear()
        _STARTED = False


def start_scanner() -> None:
    """Begin loading the catalogue in a thread, for a process about to redact: the loading
    runs outside the GIL, so imports, reading and pricing go on meanwhile (a rebuild after
    one appended turn waited 0.3-0.4 s for it). A failure is left for load_scanner() to raise."""
    global _STARTED
    if _STARTED:
        return
    _STARTED = True
    try:  # here: in the thread, its Python code would share the GIL with the build's imports
        import kingfisher_sdk  # noqa: F401
    except ImportError:
        pass  # load_scanner() says so

    def load() -> None:
        try:
            load_scanner()
        except ScannerUnavailable:
            pass
        finally:
            _LOADED.set()

    threading.Thread(target=load, name="secret-scanner-start", daemon=True).start()


def start_scanner_process() -> None:
    """Have a process of its own load the catalogue, for a build about to redact little in
    this one (a rebuild after one appended turn): inside deferred_scans every text waits for
    it, and confirm_deferred() has it scan them all at once. Not a thread: kingfisher's
    loading takes and gives back the GIL all along (~0.3 s of a core alone, 0.5-0.7 s beside
    a busy thread, which it slowed by half), and a rebuild waited for both."""
    global _STARTED, _PROCESS
    if _STARTED:
        return
    _STARTED = True
    try:
        _PROCESS = _LoadingProcess()
    except OSError:
        _STARTED = False  # no fork here: the build starts its thread (start_scanner)


class _LoadingProcess:
    """A forked process that loads the catalogue, then answers one question: whether it finds
    anything in the texts it is sent. It ends when answered, when this process closes its
    side, or, as this process exits, by a kill (it would otherwise finish loading first)."""

    def __init__(self) -> None:
        questions, ask = os.pipe()
        answer, answers = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into the build's code
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the build's to handle
                _name_this_process()
                os.close(ask)
                os.close(answer)
                _answer(questions, answers)
            finally:
                os._exit(0)
        os.close(questions)
        os.close(answers)
        self.ask, self.answer = ask, answer
        atexit.register(self.stop)

    def found_any(self, texts: list[bytes]) -> bool | None:
        """Whether the catalogue finds anything in `texts`; None when the process cannot say
        (the catalogue failed to load there, or the process is gone)."""
        try:
            with os.fdopen(self.ask, "wb") as stream:
                pickle.dump(texts, stream, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(self.answer, "rb") as stream:
                verdict = stream.read(1)
        except OSError:
            verdict = b""
        finally:
            self.ask = self.answer = -1
            self.stop()
        return {b"!": True, b"-": False}.get(verdict)

    def stop(self) -> None:
        if self.pid <= 0:
            return
        for fd in (self.ask, self.answer):
            if fd >= 0:
                os.close(fd)
        self.ask = self.answer = -1
        try:
            os.kill(self.pid, signal.SIGKILL)  # answered already, or not needed after all
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        self.pid = 0

    def forget(self) -> None:
        """In a process forked from the build: not its child, not its pipes."""
        for fd in (self.ask, self.answer):
            if fd >= 0:
                os.close(fd)
        self.pid, self.ask, self.answer = 0, -1, -1


def _name_this_process() -> None:
    """Its name in ps and /proc/PID/comm: a forked process shares the build's command line."""
    try:
        with open("/proc/self/comm", "wb") as comm:
            comm.write(LOADING_PROCESS_NAME)
    except OSError:
        pass


def _answer(questions: int, answers: int) -> None:
    """The loading process's work: '!' when the catalogue finds something visible in a text
    sent, '-' when in none, '?' when it could not load."""
    try:
        scanner = _load_scanner()
    except ScannerUnavailable:
        scanner = None
    with os.fdopen(questions, "rb") as inbox, os.fdopen(answers, "wb") as outbox:
        try:
            texts = pickle.load(inbox)
        except (EOFError, pickle.UnpicklingError):
            return
        if scanner is None:
            outbox.write(b"?")
        else:
            outbox.write(b"!" if any(finding.visible for text in texts for finding in scanner.scan(text)) else b"-")


def _ask_process(texts: list[bytes]) -> bool | None:
    global _PROCESS
    if _PROCESS is None:
        return None
    process, _PROCESS = _PROCESS, None
    return process.found_any(texts)


def scan(data: bytes) -> list[Any]:
    """The catalogue's visible findings in `data`; none while start_scanner's thread loads it,
    inside deferred_scans, where the text waits for confirm_deferred()."""
    global _DEFERRED_BYTES
    loading = _PROCESS is not None or (_STARTED and not _LOADED.is_set())
    if _DEFERRED is not None and loading and _DEFERRED_BYTES + len(data) <= DEFER_AT_MOST:
        _DEFERRED.append(data)
        _DEFERRED_BYTES += len(data)
        return []
    return _visible_findings(data)


@contextmanager
def deferred_scans() -> Iterator[None]:
    """While start_scanner's thread loads the catalogue, a build reading in this process goes
    on as if it found nothing in the texts it is asked about (it finds nothing in most), and
    confirm_deferred() asks it before anything is kept or published. After one appended turn
    the build then waits for the loading at its end, if at all, instead of before redacting
    the session (main thread ~0.33 s of CPU in, the loading ~0.39 s: the rest waited)."""
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
    found = _ask_process(pending)
    if found is None:  # no process, or it could not answer: this process's own catalogue
        found = any(_visible_findings(data) for data in pending)
    if found:
        raise FoundLater


def _visible_findings(data: bytes) -> list[Any]:
    return [finding for finding in load_scanner().scan(data) if finding.visible]


def _forget_deferred() -> None:
    """A process forked from the build has no loading thread and no loading process of its
    own: nothing is put off there."""
    global _DEFERRED, _DEFERRED_BYTES, _PROCESS
    _DEFERRED, _DEFERRED_BYTES = None, 0
    if _PROCESS is not None:
        _PROCESS.forget()
        _PROCESS = None


os.register_at_fork(after_in_child=_forget_deferred)


def scanner_version() -> str:
    import kingfisher_sdk

    return kingfisher_sdk.__version__
