"""The library's face, re-exported by the package root (`import replay_site`; its docstring
has the example): loading sessions, building a site, and the model they are made of. These
names and their keyword options are what a script may rely on; everything else in the
package is the tool's own and moves as the tool needs. A source or an output is a path, a
string or, with the extras installed, a URL (s3://, gs://); no source means the agents'
default log folders on this machine, as the command line reads them.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from replay_site import load
from replay_site.discover import DiscoveryError
from replay_site.load import ReadOptions, default_sources, examples_dir
from replay_site.model import Cost, FileChange, Problem, Session, Step, ToolCall, Usage
from replay_site.pipeline.options import DEFAULTS
from replay_site.readers.files import location

if TYPE_CHECKING:
    from replay_site.pipeline.stages import BuildResult

# what the package root re-exports (its __all__ is this and __version__: a test keeps them one)
__all__ = ["ReadOptions", "iter_sessions", "load_session", "default_sources", "examples_dir", "build_site",  # noqa: RUF022
           "Session", "Step", "ToolCall", "FileChange", "Usage", "Cost", "Problem", "DiscoveryError"]

Sources = str | os.PathLike | Iterable[str | os.PathLike] | None


def iter_sessions(sources: Sources = None, options: ReadOptions | None = None,
                  problems: list[Problem] | None = None) -> Iterator[Session]:
    """Every session found under `sources`, each subagent's after its parent's, read, priced
    and (unless `options.redact` is off) with credentials replaced. What could not be read is
    a Problem, never raised: a bad line in its session's `problems` (naming file and line), a
    file skipped or a plugin reader left out in `problems`; a source that holds no session is
    a DiscoveryError."""
    options = options or ReadOptions()
    yield from load.iter_sessions(_roots(sources, options.format), options, problems)


def load_session(reference: str | None = None, sources: Sources = None, options: ReadOptions | None = None) -> Session:
    """One session: `reference` is a log's path, a session id or a unique prefix of one, or
    None for the session started last under `sources`. DiscoveryError when none or several match."""
    options = options or ReadOptions()
    named = reference is not None and Path(reference).exists()  # a log's path: no folder to search
    return load.load_session(reference, [] if named else _roots(sources, options.format), options)


def build_site(sources: Sources = None, out: str | os.PathLike = DEFAULTS["out"], *,
               format: str = DEFAULTS["format"], title: str = DEFAULTS["title"], theme: str = DEFAULTS["theme"],
               prices: str | os.PathLike | None = None, compare: Iterable[str] = (), redact: bool = DEFAULTS["redact"],
               redact_patterns: Iterable[str] = (), anonymize: bool = DEFAULTS["anonymize"],
               decisions: str | os.PathLike | None = None, strict: bool = DEFAULTS["strict"],
               jobs: int = DEFAULTS["jobs"], scheduler: str | None = DEFAULTS["scheduler"],
               incremental: bool = not DEFAULTS["full"], force: bool = DEFAULTS["force"],
               progress: Callable[[int, int], None] | None = None) -> BuildResult:
    """Build the site of `sources` into `out`, as `replay-site build` does (each keyword is
    the command's option of that name; `prices` a TOML file, `decisions` the redaction
    decisions file, by default .replay-site-redact.toml in the working folder, `progress`
    called with (done, total)). The site is published whole or not at all. Returns what was
    built: `.out`, `.summaries` (one per session), `.steps`, `.problems` (the warnings)."""
    from replay_site.costs import load_price_overrides
    from replay_site.pipeline.stages import BuildOptions, build
    from replay_site.redact import decisions as redaction_decisions

    patterns = tuple(redact_patterns)
    for pattern in patterns:
        re.compile(pattern)  # a mistake is re.error here, not in a worker
    options = BuildOptions(format=format, theme=theme, title=title, compare=list(compare),
                           prices=load_price_overrides(Path(prices)) if prices is not None else None,
                           jobs=jobs, scheduler=scheduler, redact=redact, redact_patterns=patterns, anonymize=anonymize,
                           decisions=redaction_decisions.load(Path(decisions) if decisions is not None else None),
                           strict=strict, incremental=incremental, force=force)
    return build(_roots(sources, format), location(out), options, progress)


def _roots(sources: Sources, format_name: str) -> list[Path]:
    """The roots `sources` name; none: the default folders that exist (DiscoveryError if none does)."""
    if sources is None:
        found = default_sources(format_name)
        if not found:
            raise DiscoveryError("no agent log folder found on this machine; name the logs to read")
        return found
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    return [location(source) for source in sources]
