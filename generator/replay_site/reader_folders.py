"""Where the readers look for logs, as the console entry's "nothing changed" path checks it
without importing any reader (cli/entry.py). A build records, from the readers it ran with:
the environment variables they declare as moving their default folders (`Reader.env_vars`)
with the values they had, the plugin readers registered (the entry-point group GROUP) and,
while any is, the state of the folders on sys.path: a plugin's code is not in the code
digest, and installing, upgrading or removing a package changes one of those folders. A later
run is answered from the record only when all of them are as recorded. Standard library only.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from replay_site import installed

GROUP = "replay_site.readers"  # the entry-point group of plugin readers
# Path.home() reads it: watched even for a plugin reader that declares nothing
ALWAYS = ("HOME",)


def readers_state(readers: Iterable[Any]) -> dict[str, Any]:
    """What the site record keeps of `readers` (the registry a build ran with), as JSON."""
    names = sorted({*ALWAYS, *(name for reader in readers for name in getattr(reader, "env_vars", ()))})
    plugins = [list(point) for point in installed.entry_points(GROUP)]
    return {
        "variables": {name: os.environ.get(name) for name in names},
        "plugins": plugins,
        "path": installed.path_state() if plugins else None,
    }


def readers_unchanged(recorded: dict[str, Any]) -> bool:
    """Whether the readers would look where they looked when `recorded` was taken."""
    plugins = [list(point) for point in installed.entry_points(GROUP)]
    return (all(os.environ.get(name) == value for name, value in recorded["variables"].items())
            and plugins == recorded["plugins"]
            and (installed.path_state() if plugins else None) == recorded["path"])
