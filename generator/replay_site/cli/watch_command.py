"""`replay-site watch`: the site built, then built again (incrementally, so only what changed
is read, archived and rendered) each time the file system says a log under the sources
changed, through watchfiles (inotify and its kin: no polling loop of ours). Ctrl-C stops it;
a build stopped half-way publishes nothing, so the last complete site stays."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from replay_site import load
from replay_site.cli import build_command
from replay_site.pipeline import options
from replay_site.readers.files import is_local, location

# Changes closer together than this are one rebuild (an agent writes a turn in several writes).
DEBOUNCE_MS = 100


def watch(sources: list[Path] | None = None, **given: Any) -> None:
    import watchfiles  # only this command needs it

    chosen = {**options.DEFAULTS, **given}
    roots = [location(source) for source in sources or []] or load.default_sources(chosen["format"])
    if not roots or not all(is_local(root) for root in roots):
        build_command.error("watch needs folders or files of this machine to watch")
        raise SystemExit(2)
    out = Path(chosen["out"]).resolve()

    def is_input(_change: watchfiles.Change, path: str) -> bool:
        return not Path(path).is_relative_to(out)  # the site's own writes are no change to the logs

    _build(sources, given)
    build_command.echo(f"Watching {', '.join(map(str, roots))} (Ctrl-C stops)", err=True)
    for _changes in watchfiles.watch(*roots, watch_filter=is_input, debounce=DEBOUNCE_MS, step=20,
                                     raise_interrupt=False):
        _build(sources, given)


def _build(sources: list[Path] | None, given: dict[str, Any]) -> None:
    """One build; one that fails (a log folder gone for a moment) is reported, and watching goes on."""
    try:
        build_command.build(sources, **given)
    except SystemExit as stop:
        if stop.code not in (0, None):
            build_command.echo(f"(the build stopped with status {stop.code}; watching goes on)", err=True)
