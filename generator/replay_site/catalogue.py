"""The secret scanner's rule catalogue (kingfisher-secret-scanner: redact/detect.py scans with
it), loaded once per process. Standard library and kingfisher only: the console entry starts
loading it the moment it knows a few logs changed, before the build's own imports, because
after one appended turn the loading (~0.3 s, outside the GIL) is what the rebuild waits for."""
from __future__ import annotations

import threading
from functools import lru_cache


class ScannerUnavailable(RuntimeError):
    """Redaction was asked for but its catalogue cannot load: stop rather than publish secrets."""


_SCANNER_LOCK = threading.Lock()
_STARTED = False  # whether start_scanner() ran in this process


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
    the system at the next malloc_trim (executors.release_freed_memory). Asked for again, it
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

    threading.Thread(target=load, name="secret-scanner-start", daemon=True).start()


def scanner_version() -> str:
    import kingfisher_sdk

    return kingfisher_sdk.__version__
