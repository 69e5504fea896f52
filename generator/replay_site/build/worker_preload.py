"""Imported once by the build's fork server (worker_pool.py) before it forks any worker.

Every worker needs the same modules, the price table and the secret scanner's compiled
catalogue (~30 MiB on its own). Loaded here, they sit in pages the workers share with the
fork server, instead of one private copy per worker (worker_pool.load_shared).
"""
from __future__ import annotations

import signal

import pygments.formatters  # noqa: F401 (highlight.py imports pygments and lexing.py only when first used)
import pygments.lexers  # noqa: F401

from replay_site.build import pipeline, source_passes, spool  # noqa: F401 (what worker tasks run)
from replay_site.build.worker_pool import load_shared
from replay_site.figures import summary  # noqa: F401
from replay_site.pages import lexing, render, search  # noqa: F401

load_shared()
# Ctrl-C is the build's to handle. The fork server restores Python's SIGINT handler in each
# worker it forks, but not its signal mask: blocked here, a Ctrl-C that lands before the
# worker's initializer ignores SIGINT (worker_pool.die_with_parent) is not a KeyboardInterrupt.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
