"""What shapes one build (BuildOptions): the command line's options as the pipeline and its
worker tasks take them, with the options table's defaults (options.py, which stays
standard-library only for the console entry)."""
from __future__ import annotations

from dataclasses import dataclass, field

from replay_site.pipeline.options import DEFAULTS
from replay_site.costs import PriceBook
from replay_site.load import ReadOptions
from replay_site.redact.decisions import Decisions


@dataclass
class BuildOptions:
    """What shapes a build, with the command line's defaults (options.DEFAULTS)."""

    format: str = DEFAULTS["format"]
    theme: str = DEFAULTS["theme"]
    title: str = DEFAULTS["title"]
    prices: PriceBook | None = None  # the --prices file, loaded
    compare: list[str] = field(default_factory=list)  # "A:B" pairs -> compare/<a>--<b>.html
    jobs: int = DEFAULTS["jobs"]  # worker processes; 0 = one per core when the build is large enough
    scheduler: str | None = DEFAULTS["scheduler"]  # a dask.distributed scheduler's address: tasks run on its workers
    redact: bool = DEFAULTS["redact"]  # replace credentials in every text before rendering (redact/)
    redact_patterns: tuple[str, ...] = ()  # user regexes redacted as well (--redact-pattern)
    anonymize: bool = DEFAULTS["anonymize"]  # home paths, user and host names, e-mail addresses replaced
    decisions: Decisions = field(default_factory=Decisions)  # the house's redaction decisions (.replay-site-redact.toml)
    strict: bool = DEFAULTS["strict"]  # stop before publishing while a string redaction found is not reviewed
    incremental: bool = not DEFAULTS["full"]  # reuse what the last build of the same folder learned (cache.py)
    force: bool = DEFAULTS["force"]  # build into a folder holding files replay-site did not write (kept as they are)
    archive: str | None = DEFAULTS["archive"]  # issue 29: the archive folder (archive/), None for the default
    no_archive: bool = DEFAULTS["no_archive"]  # issue 29: neither keep logs in the archive nor read it
    atif: bool = DEFAULTS["atif"]  # issue 31: each session's ATIF trajectory beside its page

    @property
    def reading(self) -> ReadOptions:
        return ReadOptions(self.format, self.prices, self.redact, self.redact_patterns, self.anonymize, self.decisions)
