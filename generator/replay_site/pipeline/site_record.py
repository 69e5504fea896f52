"""The site record a build leaves for the console entry (cli/entry.py): every input whose
change could change the site, as the build saw it, so that the same command run again with
nothing changed is answered without building (the site part of the output folder's state
file: store/state_file.py)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from replay_site.pipeline.build_options import BuildOptions
from replay_site.discover import pick_readers
from replay_site.reader_folders import readers_state
from replay_site.readers import registry
from replay_site.model import Problem
from replay_site.pages.themes import theme_search_path
from replay_site.redact import decisions
from replay_site.store.cache import BuildCache, library_files
from replay_site.store.file_state import states_to_json
from replay_site.store.states import Listing, attach_digests, code_digest, output_states, request_for_build
from replay_site.store.writer import MANIFEST


def build_inputs(roots: list[Path], options: BuildOptions) -> list[Path]:
    """Every file or folder whose change could change the site, besides this package's code:
    the logs first, then the theme, the prices file, the redaction decisions (missing or not:
    creating the file changes the site too) and the page libraries' metadata."""
    prices = [options.prices.path.resolve()] if options.prices and options.prices.path else []
    return ([root.resolve() for root in roots] + theme_search_path(options.theme) + prices
            + [Path(decisions.FILE).resolve()] + list(library_files()))


def record_site(out: Path, inputs: list[Path], roots: int, listing: Listing | None, written: set[str],
                options: BuildOptions, cache: BuildCache, *, sessions: int, steps: int,
                problems: list[Problem]) -> dict[str, Any] | None:
    """What entry.py needs to answer the same command again without building (None when it
    cannot be answered so: the store then keeps no record of the site): the listing
    with the digests of the bytes this build used (the logs' as read; the inputs after the
    first `roots`, theme and the like, hashed now), so that a file only touched is known as such."""
    request = request_for_build()  # taken whatever happens: it is this build's only
    outputs = output_states(out, written | {MANIFEST}) if listing is not None else None
    if listing is None or outputs is None or options.compare or not options.incremental:
        return None
    attach_digests(listing, cache.files_read(), tuple(str(path) for path in inputs[roots:]))
    folders = [str(folder) for reader in pick_readers(options.format) for folder in reader.default_dirs()]
    return {
        "code": code_digest(),
        "inputs": [str(path) for path in inputs],
        "listing": states_to_json(listing),
        "default_folders": {folder: os.path.isdir(folder) for folder in folders},
        "outputs": outputs,
        "sessions": sessions,
        "steps": steps,
        "problems": [str(problem) for problem in problems],
        "request": request,  # entry.py's key for the command line that ran this build (None: not run from it)
        "readers": readers_state(registry().values()),  # the variables that move their folders, the plugins
    }
