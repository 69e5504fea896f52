"""Imported once by the build's fork server (workers.py) before it forks any worker.

Every worker needs the same modules, the price table and the secret scanner's compiled
catalogue (~30 MiB on its own). Loaded here, they sit in pages the workers share with the
fork server, instead of one private copy per worker. The objects are frozen out of the
garbage collector, whose passes would otherwise write to (and so copy) every shared page.
"""
from __future__ import annotations

import gc

from . import costs, render, search, site, spool, summary  # noqa: F401 (what worker tasks run)
from .readers import registry
from .redact.detect import ScannerUnavailable, load_scanner

registry()  # imports every reader
costs.load_price_table()
try:
    load_scanner()
except ScannerUnavailable:
    pass  # a worker that needs it tries again, and reports it to the user
gc.freeze()
