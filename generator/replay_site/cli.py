"""The replay-site command line: parses options and calls the library, nothing more."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

import json

from . import catalog, site, terminal
from .costs import PriceFileError, load_price_overrides
from .discover import DiscoveryError
from .model import Problem
from .readers import registry

app = typer.Typer(help="Turn AI coding agent session logs into a self-contained static report site.", no_args_is_help=True, add_completion=False)

SourcesArg = Annotated[Optional[list[Path]], typer.Argument(help="Log files or folders; default: the agents' own log folders.", show_default=False)]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="Reader to use: auto or a name from `replay-site formats`.")]
PricesOpt = Annotated[Optional[Path], typer.Option("--prices", help="TOML file of per-model prices that override or add to the built-in table.")]


def _fail(message: str) -> typer.Exit:
    typer.secho(f"error: {message}", err=True, fg="red")
    return typer.Exit(1)


def _roots(sources: list[Path] | None, format_name: str, quiet: bool) -> list[Path]:
    """The named sources, else the agents' default folders, else the bundled examples."""
    if sources:
        return sources
    found = site.default_sources(format_name)
    if found:
        if not quiet:
            typer.echo("Reading the agents' default log folders: " + ", ".join(str(p) for p in found), err=True)
        return found
    examples = site.examples_dir()
    typer.echo(f"No agent log folder found on this machine; building the bundled example sessions ({examples}).", err=True)
    return [examples]


@app.command()
def build(
    sources: SourcesArg = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("site"),
    format_name: FormatOpt = "auto",
    theme: Annotated[str, typer.Option("--theme", help="Theme name (in themes/) or path to a theme folder.")] = "default",
    title: Annotated[str, typer.Option("--title", help="Site title.")] = "Agent sessions",
    prices: PricesOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only warnings' count and errors.")] = False,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes; 0 = one per core for large builds.", min=0)] = 0,
    compare: Annotated[Optional[list[str]], typer.Option("--compare", help="A:B (log paths or session ids): add a page comparing them; repeatable.", show_default=False)] = None,
) -> None:
    """Build the report site: an index of sessions and one page per session."""
    try:
        book = load_price_overrides(prices) if prices else None
        options = site.BuildOptions(format=format_name, theme=theme, title=title, prices=book, compare=list(compare or []), jobs=jobs)
        roots = _roots(sources, format_name, quiet)
        with _progress(quiet) as progress:
            result = site.build(roots, out, options, progress)
    except (DiscoveryError, PriceFileError, FileNotFoundError) as exc:
        raise _fail(str(exc)) from None
    if not quiet:
        for problem in result.problems:
            typer.echo(f"warning: {problem}", err=True)
    typer.echo(
        f"Built {len(result.summaries)} sessions, {result.steps} steps, "
        f"{len(result.problems)} warnings -> {out / 'index.html'}"
    )


class _progress:
    """A rich progress bar for builds of more than a few sessions (typer brings rich)."""

    def __init__(self, quiet: bool):
        self.quiet = quiet
        self.bar = None

    def __enter__(self):
        return self.update

    def update(self, done: int, total: int) -> None:
        if self.quiet or total < 12:  # two passes per source: more than ~5 sessions
            return
        if self.bar is None:
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("Building", total=total)
        self.bar.update(self.task, completed=done)

    def __exit__(self, *_exc):
        if self.bar is not None:
            self.bar.stop()


@app.command()
def formats() -> None:
    """List the readers and the folders each one looks in by default."""
    for name, reader in sorted(registry().items()):
        folders = ", ".join(str(p) for p in reader.default_dirs()) or "-"
        typer.echo(f"{name:8} {reader.label:20} {folders}")


def _load_prices(prices: Path | None):
    return load_price_overrides(prices) if prices else None


@app.command("list")
def list_sessions(sources: SourcesArg = None, format_name: FormatOpt = "auto", prices: PricesOpt = None) -> None:
    """Print a table of sessions: id, start, agent, steps, cost, errors."""
    from rich.console import Console
    from rich.table import Table

    try:
        found = list(catalog.iter_sessions(_roots(sources, format_name, True), format_name, _load_prices(prices)))
    except (DiscoveryError, PriceFileError) as exc:
        raise _fail(str(exc)) from None
    table = Table("id", "start", "agent", "steps", "cost", "errors", "duration")
    for row in terminal.session_rows(found):
        table.add_row(*row)
    Console(width=200).print(table)


@app.command()
def show(
    session: Annotated[Optional[str], typer.Argument(help="A log path or a session id (or unique id prefix).", show_default=False)] = None,
    last: Annotated[bool, typer.Option("--last", help="Show the most recently started session.")] = False,
    sources: Annotated[Optional[list[Path]], typer.Option("--source", "-s", help="Where to look for ids (default: the agents' folders).")] = None,
    max_prose: Annotated[int, typer.Option("--max-prose", help="Characters of prose shown per step.")] = 400,
    max_output: Annotated[int, typer.Option("--max-output", help="Characters of each tool output shown.")] = 300,
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
) -> None:
    """Print one session's timeline in the terminal, one block per step."""
    if not session and not last:
        raise _fail("name a SESSION (path or id) or pass --last")
    try:
        found = catalog.load_session(None if last else session, _roots(sources, format_name, True), format_name, _load_prices(prices))
    except (DiscoveryError, PriceFileError) as exc:
        raise _fail(str(exc)) from None
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
    problems: list[Problem] = []
    try:
        found = list(catalog.iter_sessions(_roots(sources, format_name, True), format_name, _load_prices(prices), problems))
    except (DiscoveryError, PriceFileError) as exc:
        raise _fail(str(exc)) from None
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
    session: Annotated[Optional[str], typer.Argument(help="A log path or a session id (or unique id prefix).", show_default=False)] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="The file to write: one self-contained HTML page.")] = Path("replay.html"),
    last: Annotated[bool, typer.Option("--last", help="Export the most recently started session.")] = False,
    sources: Annotated[Optional[list[Path]], typer.Option("--source", "-s", help="Where to look for ids (default: the agents' folders).")] = None,
    theme: Annotated[str, typer.Option("--theme", help="Theme name (in themes/) or path to a theme folder.")] = "default",
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
) -> None:
    """Write one session as a single self-contained HTML file, e.g. to attach to a bug report."""
    from .costs import pricing_source
    from .readers import registry as readers
    from .render import Renderer
    from .summary import summarize

    if not session and not last:
        raise _fail("name a SESSION (path or id) or pass --last")
    try:
        book = _load_prices(prices)
        found = catalog.load_session(None if last else session, _roots(sources, format_name, True), format_name, book)
        agent = readers()[found.format].label if found.format in readers() else found.format
        html = Renderer(theme, "replay-site", pricing_source(book)).standalone_session_page(found, summarize(found, agent, "", ""))
    except (DiscoveryError, PriceFileError, FileNotFoundError) as exc:
        raise _fail(str(exc)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    typer.echo(f"{found.id}: {len(found.steps)} steps -> {out}")


@app.command()
def compare(
    session_a: Annotated[str, typer.Argument(help="Session A: a log path, or a session id (or unique id prefix) in --source.", show_default=False)],
    session_b: Annotated[str, typer.Argument(help="Session B: a log path, or a session id (or unique id prefix).", show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="The page to write: one self-contained HTML file.")] = Path("compare.html"),
    sources: Annotated[Optional[list[Path]], typer.Option("--source", "-s", help="Where to look for ids (default: the agents' folders).")] = None,
    theme: Annotated[str, typer.Option("--theme", help="Theme name (in themes/) or path to a theme folder.")] = "default",
    format_name: FormatOpt = "auto",
    prices: PricesOpt = None,
) -> None:
    """Compare two sessions: figures side by side, where they diverge, the timelines aligned."""
    from .compare_site import standalone_page
    from .costs import pricing_source
    from .render import Renderer

    try:
        book = _load_prices(prices)
        roots = _roots(sources, format_name, True)
        a, b = (catalog.load_session(ref, roots, format_name, book) for ref in (session_a, session_b))
        comparison, html = standalone_page(a, b, Renderer(theme, "replay-site compare", pricing_source(book)))
    except (DiscoveryError, PriceFileError, FileNotFoundError) as exc:
        raise _fail(str(exc)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    d = comparison.divergence
    verdict = "no divergence" if d is None else (
        f"diverge at A step {d.a.number if d.a else '-'} / B step {d.b.number if d.b else '-'}: {d.explanation}")
    typer.echo(f"{a.id} vs {b.id}: {verdict} -> {out}")
