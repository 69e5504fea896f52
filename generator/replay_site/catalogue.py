"""The secret scanner's rule catalogue (kingfisher-secret-scanner: redact/detect.py scans with
it), loaded once per process. Standard library and kingfisher only: the console entry starts
loading it the moment it knows a few logs changed, before the build's own imports, because
after one appended turn the loading (~0.3 s, outside the GIL) is what the rebuild waits for;
and the build asks it, meanwhile, only before publishing (deferred_scans)."""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Iterator


class ScannerUnavailable(RuntimeError):
    """Redaction was asked for but its catalogue cannot load: stop rather than publish secrets."""


_SCANNER_LOCK = threading.Lock()
_STARTED = False  # whether start_scanner() ran in this process
_LOADED = threading.Event()  # the loading start_scanner() began has ended (loaded or failed)
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


def scan(data: bytes) -> list[Any]:
    """The catalogue's visible findings in `data`; none while start_scanner's thread loads it,
    inside deferred_scans, where the text waits for confirm_deferred()."""
    global _DEFERRED_BYTES
    if _DEFERRED is not None and _STARTED and not _LOADED.is_set() and _DEFERRED_BYTES + len(data) <= DEFER_AT_MOST:
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
    if any(_visible_findings(data) for data in pending):
        raise FoundLater


def _visible_findings(data: bytes) -> list[Any]:
    return [finding for finding in load_scanner().scan(data) if finding.visible]


def _forget_deferred() -> None:
    """A process forked from the build has no loading thread: nothing is put off there."""
    global _DEFERRED, _DEFERRED_BYTES
    _DEFERRED, _DEFERRED_BYTES = None, 0


os.register_at_fork(after_in_child=_forget_deferred)


def scanner_version() -> str:
    import kingfisher_sdk

    return kingfisher_sdk.__version__
