"""Where the readers look for logs, as the console entry's "nothing changed" path checks it
without importing any reader (cli/entry.py). A build records, from the readers it ran with,
the environment variables they declare as moving their default folders (`Reader.env_vars`)
with the values they had, the plugin readers registered (the entry-point group GROUP), and
the state of the folders on sys.path (installed.py): installing, upgrading or removing a
package changes one of them. A later run is answered from the record only when the variables
are as recorded and the path is too, or, when it is not, no plugin reader was registered and
none is now: a plugin's code is not in the code digest, so any change on the path may be an
upgrade of it. With the path unchanged, nothing is asked of importlib.metadata. Standard
library only.
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
    return {
        "variables": {name: os.environ.get(name) for name in names},
        "plugins": [list(point) for point in installed.entry_points(GROUP)],
        "path": installed.path_state(),
    }


def readers_unchanged(recorded: dict[str, Any]) -> bool:
    """Whether the readers would look where they looked when `recorded` was taken."""
    if any(os.environ.get(name) != value for name, value in recorded["variables"].items()):
        return False
    if installed.path_state() == recorded["path"]:
        return True
    return recorded["plugins"] == [] and installed.entry_points(GROUP) == []
