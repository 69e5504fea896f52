"""Imported once by the build's fork server (executors.py) before it forks any worker.

Every worker needs the same modules, the price table and the secret scanner's compiled
catalogue (~30 MiB on its own). Loaded here, they sit in pages the workers share with the
fork server, instead of one private copy per worker. The objects are frozen out of the
garbage collector, whose passes would otherwise write to (and so copy) every shared page.
"""
from __future__ import annotations

import gc
import signal

from replay_site.build import pipeline, spool  # noqa: F401 (what worker tasks run)
from replay_site.costs.table import load_price_table
from replay_site.figures import summary  # noqa: F401
from replay_site.pages import render, search  # noqa: F401
from replay_site.readers import registry
from replay_site.redact.detect import load_scanner

# Each only warms a cache: what fails here fails again in the worker that needs it, which
# reports it the way the build always does (a fork server that died would only lose the build).
for warm_up in (registry, load_price_table, load_scanner):  # every reader, the prices, the catalogue
    try:
        warm_up()
    except Exception:  # noqa: BLE001 (see above)
        pass
gc.freeze()
# Ctrl-C is the build's to handle. The fork server restores Python's SIGINT handler in each
# worker it forks, but not its signal mask: blocked here, a Ctrl-C that lands before the
# worker's initializer ignores SIGINT (executors.die_with_parent) is not a KeyboardInterrupt.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
