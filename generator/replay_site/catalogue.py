"""The secret scanner's rule catalogue (kingfisher-secret-scanner; redact/detect.py scans with
it), loaded once per process. Every text is scanned before anything is written from it: there
is no deferred scan and no second build.

Loading the catalogue takes ~0.5 s of one core, with the GIL released for almost all of it, so
a build starts it in a thread (`start_loading`) and runs its own start-up beside it; the first
scan waits for it. Workers are forked once it is loaded (`finish_loading`), so they share the
one copy (~38 MiB) instead of each loading its own."""
from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any


class ScannerUnavailable(RuntimeError):
    """Redaction was asked for but its catalogue cannot load: stop rather than publish secrets."""


_SCANNER_LOCK = threading.Lock()
_loading: list[threading.Thread] = []  # the thread start_loading started, until finish_loading joins it


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
    it costs a few seconds the first time (then kingfisher's own disk cache, ~0.5 s)."""
    with _SCANNER_LOCK:
        return _load_scanner()


def _load_quietly() -> None:
    try:
        load_scanner()
    except ScannerUnavailable:
        pass  # the first scan raises it again, where the build reports it


def start_loading() -> None:
    """Begin loading the catalogue in a thread, once; load_scanner() waits for it."""
    if not _loading and _load_scanner.cache_info().currsize == 0:
        thread = threading.Thread(target=_load_quietly, name="replay-site-catalogue")
        _loading.append(thread)
        thread.start()


def finish_loading() -> None:
    """Wait for start_loading's thread to end (before a fork: a process that forks must run no other thread)."""
    while _loading:
        _loading.pop().join()


def scan(data: bytes) -> list[Any]:
    """The catalogue's visible findings in `data` (each with rule_id, location, secret and
    is_base64_encoded)."""
    return [finding for finding in load_scanner().scan(data) if finding.visible]


def scanner_version() -> str:
    import kingfisher_sdk

    return kingfisher_sdk.__version__
