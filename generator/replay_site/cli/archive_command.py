"""`replay-site archive`: what the archive of every log read keeps (archive/), checked,
pruned and given back. Log paths are printed as terminal-safe text: they are the agents'."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from replay_site.archive import commands
from replay_site.archive.folder import Archive, ArchiveError, default_folder
from replay_site.archive.recover import open_archive
from replay_site.cli.build_command import error, say
from replay_site.pages.formatting import counted

app = typer.Typer(help="The archive of every log read: list, verify, prune, restore.", no_args_is_help=True,
                  rich_markup_mode=None)

ArchiveOpt = Annotated[Optional[str], typer.Option("--archive", help="Archive folder or s3://BUCKET/PREFIX (default: "
                                                   "$XDG_DATA_HOME/replay-site/archive).", metavar="DIR|URL")]
MatchOpt = Annotated[str, typer.Option("--session", help="Only the logs whose path holds this text "
                                       "(a session id, a project folder).", metavar="TEXT")]


def _archive(where: str | None) -> Archive:
    if "://" not in (where or "") and not (folder := Path(where).expanduser() if where else default_folder()).is_dir():
        error(f"no archive at {folder}")
        raise typer.Exit(1)
    try:
        return open_archive(where)
    except ArchiveError as exc:
        error(str(exc))
        raise typer.Exit(1) from None


def _bytes(size: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:,} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return ""


@app.command("list")
def list_kept(archive: ArchiveOpt = None, matching: MatchOpt = "") -> None:
    """The archived logs: size, bytes kept, first archived, and the date each left the disk."""
    kept = commands.listing(_archive(archive), matching)
    say(f"{'left the disk':13} {'first kept':10} {'size':>12} {'kept':>12}  log")
    for row in kept:
        entry = row.entry
        say(f"{entry.gone_since or 'on disk':13} {entry.first_seen:10} {_bytes(entry.size):>12} {_bytes(row.stored):>12}  "
            f"{entry.path}", line=True)
    gone = sum(1 for row in kept if not row.on_disk)
    say(f"{counted(len(kept), 'log')} ({gone} gone from disk), {_bytes(sum(r.entry.size for r in kept))} "
        f"kept in {_bytes(sum(r.stored for r in kept))}")


@app.command()
def verify(archive: ArchiveOpt = None) -> None:
    """Read every archived copy back and check it against its digests (exit 1 when one is damaged)."""
    whole, wrong = commands.verify(_archive(archive))
    for line in wrong:
        say(f"damaged: {line}", err=True, line=True)
    say(f"{whole:,} archived files whole, {len(wrong)} damaged")
    if wrong:
        raise typer.Exit(1)


@app.command()
def prune(archive: ArchiveOpt = None,
          gone_days: Annotated[Optional[int], typer.Option("--gone-for", help="Logs gone from disk for at least DAYS days.",
                                                           metavar="DAYS", min=0)] = None,
          matching: Annotated[Optional[str], typer.Option("--session", help="Logs whose path holds this text.",
                                                          metavar="TEXT")] = None,
          yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False) -> None:
    """Remove archived logs (by age, by session), showing what it frees before it asks; with
    neither, only what killed builds left."""
    found = _archive(archive)
    plan = commands.plan_prune(found, gone_days, matching)
    for entry in plan.entries:
        if not entry.side:
            say(f"remove {entry.path}", line=True)
    say(f"{counted(plan.logs, 'log')} to remove, {_bytes(plan.freed)} to free")
    if not plan.entries and not plan.objects:
        return
    if not yes and not typer.confirm("Remove them?", default=False):
        raise typer.Exit(1)
    commands.prune(found, plan)
    say(f"freed {_bytes(plan.freed)}")


@app.command()
def restore(archive: ArchiveOpt = None, matching: MatchOpt = "",
            to: Annotated[Optional[Path], typer.Option("--to", help="Write them below this folder, at their whole path "
                                                       "(default: where they were).", metavar="DIR")] = None) -> None:
    """Write archived logs back out, byte-identical (never over a file that is there)."""
    written, refused = commands.restore(_archive(archive), matching, to)
    for line in refused:
        say(f"not restored: {line}", err=True, line=True)
    say(f"{counted(len(written), 'file')} restored")
    if refused and not written:
        raise typer.Exit(1)
