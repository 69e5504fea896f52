"""The replay-site command line: parses options and calls the library, nothing more."""
from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import catalog, site, standalone, terminal
from .costs import PriceBook, PriceFileError, load_price_overrides
from .discover import DiscoveryError
from .publish import PublishError
from .readers import registry

app = typer.Typer(help="Turn AI coding agent session logs into a self-contained static report site.", no_args_is_help=True, add_completion=False)

SourcesArg = Annotated[Optional[list[Path]], typer.Argument(help="Log files or folders; default: the agents' own log folders.", show_default=False)]
SessionArg = Annotated[Optional[str], typer.Argument(help="A log path, or a session id (or unique id prefix) under --source.", show_default=False)]
SourceOpt = Annotated[Optional[list[Path]], typer.Option("--source", "-s", help="Where to look for ids (default: the agents' folders).")]
LastOpt = Annotated[bool, typer.Option("--last", help="Take the most recently started session.")]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="Reader to use: auto or a name from `replay-site formats`.")]
ThemeOpt = Annotated[str, typer.Option("--theme", help="Theme name (in themes/) or path to a theme folder.")]
RedactOpt = Annotated[bool, typer.Option("--redact", help="Replace API keys, tokens, private keys and URL passwords in every text before rendering.")]
PricesOpt = Annotated[Optional[Path], typer.Option("--prices", help="TOML file of per-model prices that override or add to the built-in table.")]


@contextmanager
def _user_errors() -> Iterator[None]:
    """What the user can fix (a missing path, a bad price file, an unknown id) is a one-line
    error and exit status 1, not a traceback."""
    try:
        yield
    except (DiscoveryError, PriceFileError, FileNotFoundError) as exc:
        typer.secho(f"error: {exc}", err=True, fg="red")
        raise typer.Exit(1) from None


@contextmanager
def _output_errors() -> Iterator[None]:
    """An output folder that cannot or must not be written (a file, a source, someone
    else's files, a full disk): one error line, exit status 2, the old site untouched."""
    try:
        yield
    except PublishError as exc:
        typer.secho(f"error: {exc}", err=True, fg="red")
        raise typer.Exit(2) from None


def _roots(sources: list[Path] | None, format_name: str, quiet: bool = True) -> list[Path]:
    """The named sources, else the agents' default folders, else the bundled examples."""
    if sources:
        return sources
    found = site.default_sources(format_name)
    if found:
        if not quiet:
            typer.echo("Reading the agents' default log folders: " + ", ".join(map(str, found)), err=True)
        return found
    examples = site.examples_dir()
    typer.echo(f"No agent log folder found on this machine; building the bundled example sessions ({examples}).", err=True)
    return [examples]


def _prices(path: Path | None) -> PriceBook | None:
    return load_price_overrides(path) if path else None


def _one_session(reference: str | None, last: bool, sources, format_name: str, book, redact: bool = False):
    if not reference and not last:
        raise DiscoveryError("name a SESSION (log path or id) or pass --last")
    return catalog.load_session(None if last else reference, _roots(sources, format_name), format_name, book, redact)


def _write(out: Path, html: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")


@app.command()
def build(
    sources: SourcesArg = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("site"),
    format_name: FormatOpt = "auto",
    theme: ThemeOpt = "default",
    title: Annotated[str, typer.Option("--title", help="Site title.")] = "Agent sessions",
    prices: PricesOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary line and errors.")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes; 0 = one per core for large builds.", min=0)] = 0,
    compare: Annotated[Optional[list[str]], typer.Option("--compare", help="A:B (log paths or session ids): add a page comparing them; repeatable.", show_default=False)] = None,
    redact: RedactOpt = False,
    full: Annotated[bool, typer.Option("--full", help="Read and render everything again, ignoring what the last build of this folder cached.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Build into a folder holding files replay-site did not write; they are kept.")] = False,
) -> None:
    """Build the report site: an index of sessions and one page per session."""
    with _user_errors(), _output_errors():
        options = site.BuildOptions(format=format_name, theme=theme, title=title, prices=_prices(prices),
                                    compare=list(compare or []), jobs=jobs, redact=redact, incremental=not full, force=force)
        with terminal.ProgressBar(enabled=not quiet) as progress:
            result = site.build(_roots(sources, format_name, quiet), out, options, progress)
    if not quiet:
        for problem in result.problems:
            typer.echo(f"warning: {problem}", err=True)
    typer.echo(f"Built {len(result.summaries)} sessions, {result.steps} steps, {len(result.problems)} warnings -> {out / 'index.html'}")


@app.command()
def formats() -> None:
    """List the readers and the folders each one looks in by default."""
    for name, reader in sorted(registry().items()):
        typer.echo(f"{name:8} {reader.label:20} {', '.join(map(str, reader.default_dirs())) or '-'}")


@app.command("list")
def list_sessions(sources: SourcesArg = None, format_name: FormatOpt = "auto", prices: PricesOpt = None) -> None:
    """Print a table of sessions: id, start, agent, steps, cost, errors."""
    with _user_errors():
        found = list(catalog.iter_sessions(_roots(sources, format_name), format_name, _prices(prices)))
    terminal.print_table(terminal.session_rows(found))


@app.command()
def show(
    session: SessionArg = None,
    last: LastOpt = False,
    sources: SourceOpt = None,
    max_prose: Annotated[int, typer.Option("--max-prose", help="Characters of prose shown per step.")] = 400,
    max_output: Annotated[int, typer.Option("--max-output", help="Characters of each tool output shown.")] = 300,
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
) -> None:
    """Print one session's timeline in the terminal, one block per step."""
    with _user_errors():
        found = _one_session(session, last, sources, format_name, _prices(prices))
    typer.echo(terminal.timeline(found, max_prose, max_output), nl=False)


@app.command()
def check(
    sources: SourcesArg = None,
    max_cost: Annotated[Optional[float], typer.Option("--max-cost", help="Budget in USD per session (subagents included).")] = None,
    max_errors: Annotated[Optional[int], typer.Option("--max-errors", help="Most errors allowed per session.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
) -> None:
    """Exit 1 and name the sessions over budget (cost or errors), for CI and audits."""
    with _user_errors():
        found = list(catalog.iter_sessions(_roots(sources, format_name), format_name, _prices(prices)))
    breaches = terminal.budget_breaches(found, max_cost, max_errors)
    if as_json:
        typer.echo(json.dumps({"checked": len(found), "over_budget": [b.as_dict() for b in breaches]}, indent=2, ensure_ascii=False))
    else:
        for breach in breaches:
            typer.echo(f"OVER BUDGET {breach.session.id} ({breach.session.source}): {'; '.join(breach.reasons)}")
        typer.echo(f"{len(found)} sessions checked, {len(breaches)} over budget")
    if breaches:
        raise typer.Exit(1)


@app.command()
def export(
    session: SessionArg = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The file to write: one self-contained HTML page.")] = Path("replay.html"),
    last: LastOpt = False,
    sources: SourceOpt = None,
    theme: ThemeOpt = "default",
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
    redact: RedactOpt = False,
) -> None:
    """Write one session as a single self-contained HTML file, e.g. to attach to a bug report."""
    with _user_errors():
        book = _prices(prices)
        found = _one_session(session, last, sources, format_name, book, redact)
        _write(out, standalone.export_page(found, theme, book))
    typer.echo(f"{found.id}: {len(found.steps)} steps -> {out}")


@app.command()
def compare(
    session_a: Annotated[str, typer.Argument(help="Session A: a log path, or a session id (or unique id prefix) under --source.", show_default=False)],
    session_b: Annotated[str, typer.Argument(help="Session B: a log path, or a session id (or unique id prefix).", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="The page to write: one self-contained HTML file.")] = Path("compare.html"),
    sources: SourceOpt = None,
    theme: ThemeOpt = "default",
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
) -> None:
    """Compare two sessions: figures side by side, where they diverge, the timelines aligned."""
    with _user_errors():
        book = _prices(prices)
        a, b = (_one_session(ref, False, sources, format_name, book) for ref in (session_a, session_b))
        comparison, html = standalone.compare_page(a, b, theme, book)
        _write(out, html)
    typer.echo(f"{a.id} vs {b.id}: {terminal.divergence_line(comparison)} -> {out}")
