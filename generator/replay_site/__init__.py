"""replay-site: static HTML replays of AI coding agent sessions."""
import os
from pathlib import Path

__version__ = "0.1.0"


def cache_folder() -> Path:
    """Where replay-site keeps its caches (never in a site): the build's, the price memo's."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "replay-site"
