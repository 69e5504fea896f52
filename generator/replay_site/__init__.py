"""replay-site: static HTML replays of AI coding agent sessions."""
import os
import tempfile
from pathlib import Path

__version__ = "0.1.0"


def cache_folder() -> Path:
    """Where replay-site keeps its caches (never in a site): the build's, the price memo's."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "replay-site"


def keep_in_cache(name: str, data: bytes) -> None:
    """Replace the file `name` of the cache folder at once (a memo other runs read); one that
    cannot be written only costs a later run the work it saves."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, folder / name)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
