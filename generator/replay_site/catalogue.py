"""The secret scanner's rule catalogue (kingfisher-secret-scanner; redact/detect.py scans with
it), loaded once per process, the first time a text is scanned. Every text is scanned before
anything is written from it: there is no deferred scan and no second build."""
from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any


class ScannerUnavailable(RuntimeError):
    """Redaction was asked for but its catalogue cannot load: stop rather than publish secrets."""


_SCANNER_LOCK = threading.Lock()


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


def scan(data: bytes) -> list[Any]:
    """The catalogue's visible findings in `data` (each with rule_id, location, secret and
    is_base64_encoded)."""
    return [finding for finding in load_scanner().scan(data) if finding.visible]


def scanner_version() -> str:
    import kingfisher_sdk

    return kingfisher_sdk.__version__
