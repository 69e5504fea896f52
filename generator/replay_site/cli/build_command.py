"""The `build` command's work, without the command-line library: entry.py runs it straight
for a build whose command line it understands (typer and its parsing cost a rebuild ~0.1-0.2 s),
app.py's typer command for every other. Also the errors every command reports alike."""
from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from replay_site import ansi, load
from replay_site.pipeline import options, stages as pipeline
from replay_site.runtime.cluster import ClusterUnavailable
from replay_site.costs import PriceBook, PriceFileError, load_price_overrides
from replay_site.archive.folder import ArchiveError
from replay_site.discover import DiscoveryError
from replay_site.pages import terminal
from replay_site.readers.files import StoreUnavailable, location
from replay_site.redact import ScannerUnavailable, decisions
from replay_site.redact.decisions import DecisionsError
from replay_site.store.publish import PublishError

EXAMPLES_TITLE = "Example sessions — bundled with replay-site"
_RED, _YELLOW, _PLAIN = "\033[31m", "\033[33m", "\033[0m"


class UsageMistake(Exception):
    """A command line that cannot work as given (exit status 2, like click's usage errors)."""


def echo(text: str, err: bool = False, colour: str = "", nl: bool = True) -> None:
    """A line for the user; coloured only on a terminal (as click's secho)."""
    stream = sys.stderr if err else sys.stdout
    if colour and stream.isatty():
        text = f"{colour}{text}{_PLAIN}"
    stream.write(text + ("\n" if nl else ""))
    stream.flush()


def say(text: str, err: bool = False, nl: bool = True, line: bool = False) -> None:
    """Print text that holds log content: control characters shown escaped, never obeyed
    (colour codes pass only to a terminal)."""
    stream = sys.stderr if err else sys.stdout
    echo(ansi.for_terminal(text, color=stream.isatty(), line=line), err=err, nl=nl)


def error(message: str) -> None:
    echo(f"error: {ansi.for_terminal(message, color=False, line=True)}", err=True, colour=_RED)


@contextmanager
def user_errors() -> Iterator[None]:
    """What the user can fix (a missing path, a bad price file, an unknown id) is a one-line
    error and exit status 1, not a traceback."""
    try:
        yield
    except (UsageMistake, DecisionsError) as exc:
        error(str(exc))
        raise SystemExit(2) from None
    except PermissionError as exc:
        error(f"permission denied: {exc.filename or exc}")
        raise SystemExit(1) from None
    except (DiscoveryError, ArchiveError, PriceFileError, FileNotFoundError, ScannerUnavailable, ClusterUnavailable, StoreUnavailable) as exc:
        error(str(exc))
        raise SystemExit(1) from None


@contextmanager
def output_errors() -> Iterator[None]:
    """An output folder that cannot or must not be written (a file, a source, someone
    else's files, a full disk): one error line, exit status 2, the old site untouched."""
    try:
        yield
    except PublishError as exc:
        error(str(exc))
        raise SystemExit(2) from None


def prices(path: Path | None) -> PriceBook | None:
    return load_price_overrides(path) if path else None


def patterns(given: list[str] | None) -> tuple[str, ...]:
    for pattern in given or []:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise UsageMistake(f"--redact-pattern {pattern!r} is not a regular expression ({exc})") from None
    return tuple(given or [])


def warn_unredacted(count: int) -> None:
    if count:
        echo(f"warning: --no-redact: {count} likely secrets are left in the output", err=True, colour=_YELLOW)


def _build_roots(sources: list[Path] | None, format_name: str, quiet: bool) -> tuple[list[Path], bool]:
    """The roots a build reads, and whether they are the bundled examples (no logs here)."""
    if sources:
        return sources, False
    found = load.default_sources(format_name)
    if found:
        if not quiet:
            echo("Reading the agents' default log folders: " + ", ".join(map(str, found)), err=True)
        return found, False
    examples = load.examples_dir()
    echo(f"No agent log folder found on this machine; building the bundled example sessions ({examples}).", err=True)
    return [examples], True


def build(sources: list[Path] | None = None, **given: Any) -> None:
    """Build the report site; a mistake the user can fix is an error line and SystemExit.
    `given` holds build options by their name in the options table (build/options.py)."""
    unknown = set(given) - set(options.DEFAULTS)
    if unknown:
        raise TypeError(f"unknown build options: {', '.join(sorted(unknown))}")
    chosen = {**options.DEFAULTS, **given}
    quiet = chosen["quiet"]
    with user_errors(), output_errors():
        out = location(chosen["out"])
        roots, examples = _build_roots([location(source) for source in sources or []], chosen["format"], quiet)
        title = EXAMPLES_TITLE if examples and chosen["title"] == options.DEFAULTS["title"] else chosen["title"]
        build_options = pipeline.BuildOptions(format=chosen["format"], theme=chosen["theme"], title=title,
                                              prices=prices(chosen["prices"]), compare=list(chosen["compare"] or []),
                                              jobs=chosen["jobs"], scheduler=chosen["scheduler"], redact=chosen["redact"],
                                              redact_patterns=patterns(chosen["redact_pattern"]), anonymize=chosen["anonymize"],
                                              incremental=not chosen["full"], force=chosen["force"],
                                              decisions=decisions.load(), strict=chosen["strict"],
                                              archive=chosen["archive"], no_archive=chosen["no_archive"],
                                              atif=chosen["atif"])
        with terminal.ProgressBar(enabled=not quiet) as progress:
            try:
                result = pipeline.build(roots, out, build_options, progress)
            except pipeline.UnreviewedSecrets as exc:
                error(str(exc))
                raise SystemExit(1) from None
    if not chosen["redact"]:
        warn_unredacted(result.unredacted)
    if not quiet:
        for problem in result.problems:
            say(f"warning: {problem}", err=True, line=True)
    echo(f"Built {len(result.summaries)} sessions, {result.steps} steps, {len(result.problems)} warnings -> {out / 'index.html'}")
    if examples and not quiet:
        echo(next_steps(out), err=True)


def next_steps(out) -> str:
    """What a first-time user does after the bundled examples: open them, then build their own."""
    return (f"Next: open {out / 'index.html'} in a browser. For your own logs, name their files or folders "
            f"(SOURCES), e.g. `replay-site build ~/.glue/sessions ~/.claude/projects -o {out}`; "
            "`replay-site formats` lists each agent's folder.")
