"""The replay-site command line: parses options and calls the library, nothing more."""
from __future__ import annotations

import inspect
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape

from replay_site.version import __version__
from replay_site import ansi, atif_export, load
from replay_site.pipeline import options
from replay_site.cli import archive_command, build_command
from replay_site.cli.build_command import (
    UsageMistake,
    say,
    user_errors,
    warn_unredacted,
)
from replay_site.cli.build_command import patterns as _patterns
from replay_site.cli.build_command import prices as _prices
from replay_site.discover import DiscoveryError
from replay_site.figures import parts
from replay_site.pages import standalone, terminal
from replay_site.pages.formatting import counted
from replay_site.readers import plugin_problems, registry
from replay_site.redact import count_secrets, decisions
from replay_site.redact.review import review_hits
from replay_site.store.publish import MANIFEST

# Plain (click) help: typer's rich help prints `<bool>` after every flag, as if it took a value.
app = typer.Typer(help="Turn AI coding agent session logs into a self-contained static report site.", no_args_is_help=True,
                  add_completion=False, rich_markup_mode=None)

app.add_typer(archive_command.app, name="archive")


def _flag(*decls: str, help: str):  # noqa: A002 - typer's own keyword
    return typer.Option(*decls, help=help, metavar="")



def _annotation(option: options.Option) -> Any:
    """The typer parameter of one row of the options table (build/options.py)."""
    if option.kind in ("flag", "switch"):
        return Annotated[bool, _flag(*option.flags, help=option.help)]
    if option.kind == "repeat":
        return Annotated[Optional[list[option.value_type]], typer.Option(*option.flags, help=option.help, show_default=False,
                                                                          metavar=option.metavar)]
    value_type = str if option.url else option.value_type
    value_type = Optional[value_type] if option.default is None else value_type
    return Annotated[value_type, typer.Option(*option.flags, help=option.help, min=option.minimum)]


SourcesArg = Annotated[Optional[list[Path]], typer.Argument(help="Log files or folders; default: the agents' own log folders.", show_default=False)]
BuildSourcesArg = Annotated[Optional[list[str]], typer.Argument(
    help="Log files or folders, or URLs of folders in an object store (s3://bucket/logs); default: the agents' own log folders.",
    show_default=False)]
SessionArg = Annotated[Optional[str], typer.Argument(help="A log path, or a session id (or unique id prefix) under --source.", show_default=False)]
SourceOpt = Annotated[Optional[list[Path]], typer.Option("--source", "-s", help="Where to look for ids (default: the agents' folders).", metavar="PATH")]
LastOpt = Annotated[bool, _flag("--last", help="Take the most recently started session.")]


def _file_path(text: str | Path) -> Path:
    """An -o that names a folder by its trailing slash (`-o newdir/`) is a mistake, not a file
    named `newdir`: Path() would drop the slash, so it is judged on the text given."""
    if isinstance(text, str) and text.endswith(("/", os.sep)):  # (the default comes as a Path)
        raise typer.BadParameter(f"{text} names a folder; -o names the file to write (like {text}replay.html)")
    return Path(text)


def _out(help: str):
    return Annotated[Path, typer.Option("--out", "-o", help=help, parser=_file_path, metavar="<path>")]
FormatOpt = _annotation(options.BY_NAME["format"])
ThemeOpt = _annotation(options.BY_NAME["theme"])
RedactOpt = _annotation(options.BY_NAME["redact"])
RedactPatternOpt = _annotation(options.BY_NAME["redact_pattern"])
AnonymizeOpt = _annotation(options.BY_NAME["anonymize"])
PricesOpt = _annotation(options.BY_NAME["prices"])


def _roots(sources: list[Path] | None, format_name: str) -> list[Path]:
    """The named sources, else the agents' default folders."""
    if sources:
        return sources
    found = load.default_sources(format_name)
    if not found:
        raise DiscoveryError("no agent log folder found on this machine; name a log file or folder")
    return found


def _one_session(reference: str | None, last: bool, sources, format_name: str, book, redact: bool = True,
                 patterns: tuple[str, ...] = (), anonymize: bool = False):
    if not reference and not last:
        raise DiscoveryError("name a SESSION (log path or id) or pass --last")
    if last and reference:
        # `--last DIR` (as `list DIR`): the argument says where to look, not which session
        roots, reference = [Path(reference), *(sources or [])], None
    else:
        roots = sources or ([] if reference and Path(reference).exists() else _roots(sources, format_name))
    reading = load.ReadOptions(format_name, book, redact, patterns, anonymize, decisions.load())
    return load.load_session(None if last else reference, roots, reading)


def _check_output_file(out: Path, inputs: list) -> None:
    """Refuse an -o that cannot take a file, or would overwrite a log, before any log is read."""
    for given in inputs:
        if given and Path(given).is_file() and out.exists() and Path(given).resolve() == out.resolve():
            raise UsageMistake(f"-o {out} is the log being read; name another file")
    if out.is_dir():
        raise UsageMistake(f"{out} is a folder; -o names the HTML file to write")
    parent = out.parent if str(out.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise UsageMistake(f"{parent} is not a folder")
    existing = next((folder for folder in [parent, *parent.parents] if folder.exists()), Path("."))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageMistake(f"cannot write to {existing} (permission denied)")


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def _write(out: Path, html: str) -> None:
    """Write atomically: a reader of `out` sees the old file or the new one, never half of one."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=out.parent, prefix=f".{out.name}.", suffix=".tmp", delete=False) as temp:
            temp.write(html.encode("utf-8", "replace"))
        # A temporary file is private (0600); the file shared is readable like any other the
        # user writes (0644 under umask 022), so a web server can serve it.
        os.chmod(temp.name, 0o666 & ~_umask())
        os.replace(temp.name, out)  # replaces a symlink at `out` itself, never its target
    except OSError as exc:
        if "temp" in locals() and os.path.exists(temp.name):
            os.unlink(temp.name)
        raise UsageMistake(f"cannot write {out}: {exc.strerror or exc}") from None


def build(sources: BuildSourcesArg = None, **given: Any) -> None:
    """Build the report site: an index of sessions and one page per session."""
    build_command.build(sources, **given)


def _with_build_options(command: Callable[..., None]) -> Callable[..., None]:
    """`command` with the options table's parameters, as typer reads them from a signature."""
    parameters = [inspect.Parameter("sources", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=BuildSourcesArg)]
    parameters += [inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=option.default,
                                     annotation=_annotation(option)) for option in options.BUILD]
    command.__signature__ = inspect.Signature(parameters)
    command.__annotations__ = {parameter.name: parameter.annotation for parameter in parameters}
    return command


app.command()(_with_build_options(build))


def watch(sources: BuildSourcesArg = None, **given: Any) -> None:
    """Build the site, then again each time a log under SOURCES changes (Ctrl-C stops; the last complete site stays)."""
    from replay_site.cli.watch_command import watch as watching  # watchfiles only for this command

    watching(sources, **given)


app.command()(_with_build_options(watch))


@app.command()
def formats(
    sources: SourcesArg = None,
    check_kinds: Annotated[bool, _flag("--check", help="Read SOURCES and print the record kinds no reader knows, by producer version, "
                                                       "the fields renamed or retyped (file:line: field), and the files skipped; "
                                                       "exit 1 when there are any.")] = False,
    format_name: FormatOpt = "auto",
) -> None:
    """List the readers, the folders each one looks in by default (those on this machine marked
    "found") and the variables that move them (--check: what they do not understand)."""
    if not check_kinds:
        for name, reader in sorted(registry().items()):
            folders = ", ".join(f"{folder} (found)" if folder.is_dir() else str(folder) for folder in reader.default_dirs()) or "-"
            moved = ", ".join(f"${variable}" for variable in getattr(reader, "env_vars", ()))
            typer.echo(f"{name:8} {reader.label:20} {folders}" + (f"  [moved by {moved}]" if moved else ""))
        for problem in plugin_problems():
            say(f"warning: {problem}", err=True, line=True)
        return
    problems: list = []
    with user_errors():
        found = list(load.iter_sessions(_roots(sources, format_name), load.ReadOptions(format_name, redact=False), problems))
        fields, first_seen = load.field_drift(_roots(sources, format_name), format_name)
    report = terminal.format_check(found, problems, fields, first_seen)
    for line in report:
        say(line)
    verdict = "every record kind known, no file skipped" if not report else counted(len(report), "finding")
    typer.echo(f"{counted(len(found), 'session')} read: {verdict}")
    if report:
        raise typer.Exit(1)


@app.command("list")
def list_sessions(sources: SourcesArg = None, source: SourceOpt = None, format_name: FormatOpt = "auto",
                  prices: PricesOpt = None) -> None:
    """Print a table of sessions: id, title, start, agent, outcome, steps, cost, errors (as wide as the terminal)."""
    sources = [*(sources or []), *(source or [])] or None  # `list DIR` or `list -s DIR`, as show, export and compare take it
    with user_errors():
        found = list(load.iter_sessions(_roots(sources, format_name), load.ReadOptions(format_name, _prices(prices), redact=False)))
    # rich reads `[...]` in a cell as markup: a session id from a log must print as it is.
    terminal.print_table([tuple(escape(ansi.for_terminal(cell, color=False)) for cell in row)
                          for row in terminal.session_rows(found)])


@app.command()
def show(
    session: SessionArg = None,
    last: LastOpt = False,
    sources: SourceOpt = None,
    max_prose: Annotated[int, typer.Option("--max-prose", help="Characters of prose shown per step.")] = 400,
    max_output: Annotated[int, typer.Option("--max-output", help="Characters of each tool output shown.")] = 300,
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
    redact: RedactOpt = True,
    redact_pattern: RedactPatternOpt = None,
    anonymize: AnonymizeOpt = False,
) -> None:
    """Print one session's timeline in the terminal, one block per step."""
    with user_errors():
        found = _one_session(session, last, sources, format_name, _prices(prices), redact, _patterns(redact_pattern),
                             anonymize)
    if not redact:
        warn_unredacted(count_secrets([found]))
    say(terminal.timeline(found, max_prose, max_output), nl=False)


@app.command()
def check(
    sources: SourcesArg = None,
    max_cost: Annotated[Optional[float], typer.Option("--max-cost", help="Budget in USD per session (subagents included).")] = None,
    max_errors: Annotated[Optional[int], typer.Option("--max-errors", help="Most errors allowed per session.")] = None,
    allow_unknown_cost: Annotated[bool, _flag("--allow-unknown-cost", help="Pass sessions whose cost is unknown (unpriced models) under --max-cost.")] = False,
    as_json: Annotated[bool, _flag("--json", help="Print the verdict as JSON.")] = False,
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
) -> None:
    """Exit 1 and name the sessions over budget (cost or errors), for CI and audits."""
    with user_errors():
        if max_cost is None and max_errors is None:
            raise UsageMistake("check needs a limit: --max-cost and/or --max-errors")
        found = list(load.iter_sessions(_roots(sources, format_name), load.ReadOptions(format_name, _prices(prices), redact=False)))
    breaches = terminal.budget_breaches(found, max_cost, max_errors)
    over = {id(breach.session) for breach in breaches}
    # A session whose cost is not all known and not over the limit either way cannot be shown
    # within --max-cost: it is its own count, failing unless --allow-unknown-cost.
    unknown = [session for session in _top_level(found) if session.cost_with_children.unpriced_steps and id(session) not in over] \
        if max_cost is not None else []
    for breach in breaches:
        if max_cost is not None and breach.cost.unpriced_steps:
            breach.reasons.append(f"cost unknown ({_unpriced(breach.cost)})")
    if as_json:
        typer.echo(json.dumps({"checked": len(found), "over_budget": [b.as_dict() for b in breaches],
                               "cost_unknown": [{"id": session.id, "source": session.source,
                                                 "unpriced_steps": session.cost_with_children.unpriced_steps,
                                                 "unpriced_models": list(session.cost_with_children.unpriced_models)} for session in unknown],
                               "cost_unknown_allowed": [session.id for session in unknown] if allow_unknown_cost else []},
                              indent=2, ensure_ascii=True))
    else:
        for breach in breaches:
            say(f"OVER BUDGET {breach.session.id} ({breach.session.source}): {'; '.join(breach.reasons)}", line=True)
        for session in unknown:
            allowed = "; allowed by --allow-unknown-cost" if allow_unknown_cost else ""
            say(f"COST UNKNOWN {session.id} ({session.source}): {_unpriced(session.cost_with_children)}{allowed}", line=True)
        line = f"{counted(len(found), 'session')} checked, {len(breaches):,} over budget"
        typer.echo(line + (f", {len(unknown):,} cost unknown" if max_cost is not None else ""))
        if unknown and not allow_unknown_cost:
            typer.echo(f"hint: {counted(len(unknown), 'session')} {'uses' if len(unknown) == 1 else 'use'} models without a price: "
                       "give their prices with --prices FILE, or pass them with --allow-unknown-cost")
    if breaches or (unknown and not allow_unknown_cost):
        raise typer.Exit(1)


def _top_level(sessions) -> list:
    """Sessions judged on their own: subagents are judged with their parent, as budget_breaches does."""
    return [session for session in sessions if not (session.parent_id and session.relation == "subagent")]


def _unpriced(cost) -> str:
    """"7 unpriced steps (local/mock-alpha, local/mock-beta)": what makes a cost unknown."""
    return f"{counted(cost.unpriced_steps, 'unpriced step')} ({', '.join(cost.unpriced_models) or 'unknown model'})"


@app.command()
def export(
    session: SessionArg = None,
    out: _out("The file to write: one self-contained HTML page, Markdown when it ends in .md, an ATIF trajectory when it ends in .atif.json.") = Path("replay.html"),
    last: LastOpt = False,
    steps: Annotated[Optional[str], typer.Option("--steps", help="Only these steps, FIRST-LAST (like 40-60).", show_default=False)] = None,
    around_error: Annotated[bool, _flag("--around-error", help="Only the steps around the first failure that mattered.")] = False,
    sources: SourceOpt = None,
    theme: ThemeOpt = "default",
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
    redact: RedactOpt = True,
    redact_pattern: RedactPatternOpt = None,
    anonymize: AnonymizeOpt = False,
) -> None:
    """Write one session (or some of its steps) as a single self-contained HTML file, or as
    Markdown, e.g. to attach to a bug report; or the whole session, its subagents embedded, as an
    ATIF trajectory (the Agent Trajectory Interchange Format) for other tools."""
    as_atif = out.name.lower().endswith(ATIF_SUFFIX)
    with user_errors():
        if steps and around_error:
            raise UsageMistake("--steps and --around-error name the steps twice; pass one")
        if as_atif and (steps or around_error):
            raise UsageMistake("an ATIF trajectory holds the whole session: leave out --steps and --around-error")
        wanted = _step_range(steps)
        _check_output_file(out, [session, *(sources or [])])
        book = _prices(prices)
        found = _one_session(session, last, sources, format_name, book, redact, _patterns(redact_pattern), anonymize)
        if around_error:
            wanted = _as_mistake(parts.around_error, found)
        if as_atif:
            text = atif_export.dumps(found).decode()
        else:
            text = _as_mistake(lambda s: standalone.export_page(s, theme, book, wanted, out.suffix.lower() == ".md"), found)
        _write(out, text)
    if not redact:
        warn_unredacted(count_secrets(found.walk()))
    shown = f"steps {wanted.start}-{wanted.stop - 1} of {len(found.steps)}" if wanted else f"{len(found.steps)} steps"
    say(f"{found.id}: {shown} -> {out}", line=True)


# `export -o NAME.atif.json` writes ATIF instead of a page.
ATIF_SUFFIX = ".atif.json"


def _step_range(text: str | None) -> range | None:
    try:
        return parts.parse_steps(text) if text else None
    except ValueError as exc:
        raise UsageMistake(str(exc)) from None


def _as_mistake(work, session):
    """`work(session)`, its ValueError (no such steps, nothing failed) told as a mistake."""
    try:
        return work(session)
    except ValueError as exc:
        raise UsageMistake(str(exc)) from None


@app.command()
def redactions(
    sources: SourcesArg = None,
    out: _out("The review page to write (a local file, never part of a site).")
        = Path("replay-site-redactions.html"),
    format_name: FormatOpt = "auto",
    theme: ThemeOpt = "default",
    redact_pattern: RedactPatternOpt = None,
) -> None:
    """List every string redaction would replace, in context and masked, for review before publishing."""
    with user_errors():
        _check_output_file(out, list(sources or []))
        if any((folder / MANIFEST).exists() for folder in out.resolve().parents):
            raise UsageMistake(f"{out} is inside a built site: the review page is never published; write it elsewhere")
        sessions = list(load.iter_sessions(_roots(sources, format_name), load.ReadOptions(format_name, redact=False)))
        rows = review_hits(sessions, decisions.load(), _patterns(redact_pattern))
        _write(out, standalone.review_page(rows, theme))
    waiting = sum(1 for row in rows if not row.decision)
    say(f"{len(rows)} hits, {waiting} not reviewed -> {out}", line=True)


@app.command()
def compare(
    session_a: Annotated[str, typer.Argument(help="Session A: a log path, or a session id (or unique id prefix) under --source.", show_default=False)],
    session_b: Annotated[str, typer.Argument(help="Session B: a log path, or a session id (or unique id prefix).", show_default=False)],
    out: _out("The page to write: one self-contained HTML file.") = Path("compare.html"),
    sources: SourceOpt = None,
    theme: ThemeOpt = "default",
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
    redact: RedactOpt = True,
    redact_pattern: RedactPatternOpt = None,
    anonymize: AnonymizeOpt = False,
) -> None:
    """Compare two sessions: figures side by side, where they diverge, the timelines aligned."""
    with user_errors():
        _check_output_file(out, [session_a, session_b, *(sources or [])])
        book = _prices(prices)
        patterns = _patterns(redact_pattern)
        a, b = (_one_session(ref, False, sources, format_name, book, redact, patterns, anonymize) for ref in (session_a, session_b))
        comparison, html = standalone.compare_page(a, b, theme, book)
        _write(out, html)
    if not redact:
        warn_unredacted(count_secrets([a, b]))
    say(f"{a.id} vs {b.id}: {terminal.divergence_line(comparison)} -> {out}", line=True)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"replay-site {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: Annotated[bool, typer.Option("--version", help="Print the version and exit.", metavar="",
                                               callback=_print_version, is_eager=True)] = False) -> None:
    """Turn AI coding agent session logs into a self-contained static report site."""
