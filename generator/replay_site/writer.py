"""The site writer: knows only files. Each file is written atomically (temp file, then
rename), and files an earlier build wrote but this one did not are removed, so a site
never mixes two builds' pages for long and never keeps pages of deleted sessions."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

MANIFEST = ".replay-site-manifest.json"

# mkstemp creates files readable by their owner only; a site is meant to be served and
# shared, so files get the usual permissions under the user's umask.
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK


class SiteWriter:
    def __init__(self, out: Path):
        self.out = out
        self.written: set[str] = set()

    def write(self, relative: str, data: str | bytes) -> None:
        target = self.out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        payload = data.encode() if isinstance(data, str) else data
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(payload)
            os.chmod(temp, FILE_MODE)
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        self.written.add(relative)

    def finish(self) -> None:
        """Remove what the previous build wrote and this one did not, then record this build."""
        manifest = self.out / MANIFEST
        try:
            previous = set(json.loads(manifest.read_text()))
        except (OSError, ValueError):
            previous = set()
        root = self.out.resolve()
        for stale in sorted(previous - self.written):
            path = (self.out / stale).resolve()
            if path.is_relative_to(root):  # the manifest is a file on disk: trust nothing in it
                path.unlink(missing_ok=True)
        self.write(MANIFEST, json.dumps(sorted(self.written | {MANIFEST}), indent=0))
