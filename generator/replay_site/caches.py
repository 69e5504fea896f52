"""Where replay-site keeps its caches, and the one way a cache file is replaced."""
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def cache_folder() -> Path:
    """Where replay-site keeps its caches (never in a site): the build's, the price memo's."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "replay-site"


def replace_file_at_once(path: Path, chunks: Iterable[bytes]) -> None:
    """Replace `path` at once with the bytes `chunks` give (a reader sees the old file or the
    new, whole); one that cannot be written only costs a later run the work it saves: every
    file so written is a cache or a memo (the build cache's, the price memo, what is installed)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            for chunk in chunks:
                stream.write(chunk)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
