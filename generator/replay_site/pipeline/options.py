"""The `build` command's options, once: the typer command (cli/app.py), the fast entry's own
parser (cli/entry.py), build_command.build's keywords and BuildOptions' defaults all come
from this table, so a default cannot differ between them. Standard library only: the fast
entry imports it before deciding whether anything needs building."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Option:
    name: str  # the keyword of build_command.build
    flags: tuple[str, ...]  # spellings; "--x/--no-x" for an on/off switch
    default: Any
    help: str
    kind: str = "value"  # value | flag (present or not) | switch (--x/--no-x) | repeat (a value, repeatable)
    value_type: type = str
    shapes_site: bool = True  # part of what a command line means to the site (-q, -j change no byte)
    fast: bool = True  # read by the fast entry; the rest always go through typer
    metavar: str | None = None
    minimum: int | None = None
    url: bool = False  # a path or a URL (s3://...): typer reads it as text, which keeps the URL's slashes


    @property
    def spellings(self) -> tuple[str, ...]:
        return tuple(part for flag in self.flags for part in flag.split("/"))


BUILD = (
    Option("out", ("--out", "-o"), Path("site"), "Output folder, or a URL in an object store (s3://bucket/site).",
           value_type=Path, url=True),
    Option("format", ("--format", "-f"), "auto", "Reader to use: auto or a name from `replay-site formats`."),
    Option("theme", ("--theme",), "default", "Theme name (in themes/) or path to a theme folder."),
    Option("title", ("--title",), "Agent sessions", "Site title."),
    Option("prices", ("--prices",), None, "TOML file of per-model prices that override or add to the built-in table.",
           value_type=Path),
    Option("quiet", ("--quiet", "-q"), False, "Print only the summary line and errors.", kind="flag", shapes_site=False),
    Option("jobs", ("--jobs", "-j"), 0, "Processes that read and render, this one included; 0 = one per core for large builds.", value_type=int,
           shapes_site=False, minimum=0),
    Option("scheduler", ("--scheduler",), None,
           "Address of a dask.distributed scheduler (tcp://host:port): read and render on its workers, which must "
           "see the sources and the output at the same paths or URLs.", shapes_site=False),
    Option("compare", ("--compare",), None, "A:B (log paths or session ids): add a page comparing them; repeatable.",
           kind="repeat", fast=False, metavar="A:B"),
    Option("redact", ("--redact/--no-redact",), True,
           "Replace API keys, tokens, passwords and private keys in every text with [REDACTED:kind·N-Mchars] (on by default).",
           kind="switch"),
    Option("redact_pattern", ("--redact-pattern",), None,
           "A regular expression to redact as well (its `secret` group, else the whole match); repeatable.",
           kind="repeat", fast=False, metavar="REGEX"),
    Option("anonymize", ("--anonymize",), False,
           "Replace home paths, user and host names and e-mail addresses with stable placeholders (/home/<user>, <host-…>).",
           kind="flag", fast=False),
    Option("strict", ("--strict",), False,
           "Fail (exit 1) before publishing when redaction found strings the decisions file (.replay-site-redact.toml) "
           "does not name yet.", kind="flag", fast=False),
    Option("full", ("--full",), False, "Read and render everything again, ignoring what the last build of this folder cached.",
           kind="flag", fast=False),
    Option("force", ("--force",), False, "Build into a folder holding files replay-site did not write; they are kept.",
           kind="flag", fast=False),
    Option("atif", ("--atif",), False, "Also write each session as an ATIF trajectory (sessions/<page>.atif.json), "
           "linked from its page and redacted as the page is.", kind="flag"),  # issue 31
    # issue 29: the archive of every log read (archive/)
    Option("archive", ("--archive",), None, "Folder (or s3://BUCKET/PREFIX) of the archive of every log read (default: "  # issue 29: s3://
           "$XDG_DATA_HOME/replay-site/archive); a session whose log is gone is rendered from it.", fast=False),
    Option("no_archive", ("--no-archive",), False, "Neither keep the logs read in the archive nor render sessions from it.",
           kind="flag", fast=False),
)
DEFAULTS = {option.name: option.default for option in BUILD}
BY_NAME = {option.name: option for option in BUILD}
BY_SPELLING = {spelling: option for option in BUILD for spelling in option.spellings}
