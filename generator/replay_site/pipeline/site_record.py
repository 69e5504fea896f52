"""The site record a build leaves for the console entry (cli/entry.py): every input whose
change could change the site, as the build saw it, so that the same command run again with
nothing changed is answered without building (store/states.py keeps the record's format)."""
from __future__ import annotations

import os
from pathlib import Path

import orjson

from replay_site.pipeline.build_options import BuildOptions
from replay_site.discover import pick_readers
from replay_site.model import Problem
from replay_site.pages.themes import theme_search_path
from replay_site.redact import decisions
from replay_site.store.cache import BuildCache, library_files
from replay_site.store.file_state import states_to_json
from replay_site.store.states import Listing, attach_digests, code_digest, output_states, replace_file, site_record_path
from replay_site.store.writer import MANIFEST


def build_inputs(roots: list[Path], options: BuildOptions) -> list[Path]:
    """Every file or folder whose change could change the site, besides this package's code:
    the logs first, then the theme, the prices file, the redaction decisions (missing or not:
    creating the file changes the site too) and the page libraries' metadata."""
    prices = [options.prices.path.resolve()] if options.prices and options.prices.path else []
    return ([root.resolve() for root in roots] + theme_search_path(options.theme) + prices
            + [Path(decisions.FILE).resolve()] + list(library_files()))


def record_site(out: Path, inputs: list[Path], roots: int, listing: Listing | None, written: set[str],
                options: BuildOptions, cache: BuildCache, *, started_ns: int, sessions: int, steps: int,
                problems: list[Problem]) -> None:
    """What entry.py needs to answer the same command again without building: the listing
    with the digests of the bytes this build used (the logs' as read; the inputs after the
    first `roots`, theme and the like, hashed now), so that a file only touched is known as such."""
    outputs = output_states(out, written | {MANIFEST}) if listing is not None else None
    if listing is None or outputs is None or options.compare or not options.incremental:
        site_record_path(out).unlink(missing_ok=True)
        return
    attach_digests(listing, cache.files_read(), tuple(str(path) for path in inputs[roots:]))
    folders = [str(folder) for reader in pick_readers(options.format) for folder in reader.default_dirs()]
    replace_file(site_record_path(out), orjson.dumps({
        "started_ns": started_ns,
        "key": cache.key,
        "code": code_digest(),
        "inputs": [str(path) for path in inputs],
        "listing": states_to_json(listing),
        "default_folders": {folder: os.path.isdir(folder) for folder in folders},
        "outputs": outputs,
        "sessions": sessions,
        "steps": steps,
        "problems": [str(problem) for problem in problems],
        "request": None,  # entry.py's key for the command line that ran this build
    }))
