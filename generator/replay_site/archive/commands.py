"""What `replay-site archive` does, without the command line: list what is kept, verify it,
prune it (by age or by session; what it frees is worked out before anything is removed),
and restore the original logs, byte-identical."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from replay_site.archive.folder import Archive, Damaged, Entry
from replay_site.archive.recover import write_log


@dataclass(frozen=True)
class Kept:
    """One archived log as `archive list` shows it."""

    entry: Entry
    stored: int  # bytes its chunks take in the archive

    @property
    def on_disk(self) -> bool:
        return self.entry.gone_since is None


def listing(archive: Archive, matching: str = "") -> list[Kept]:
    """The archived logs (not the files kept beside them), those whose path holds `matching`."""
    entries, _ = archive.entries()
    return [Kept(entry, archive.stored_bytes(entry)) for entry in entries if not entry.side and matching in entry.path]


def verify(archive: Archive) -> tuple[int, list[str]]:
    """Every entry read back and checked: how many are whole, and what is wrong with the others."""
    entries, broken = archive.entries()
    wrong = [f"{name}: manifest cannot be read" for name in broken]
    whole = 0
    for entry in entries:
        try:
            for _ in archive.read(entry):
                pass
            whole += 1
        except Damaged as exc:
            wrong.append(f"{entry.path} ({entry.key[:12]}): {exc}")
    return whole, wrong


@dataclass(frozen=True)
class Pruning:
    """What a prune will remove, worked out before it asks."""

    entries: list[Entry]
    objects: list[str]  # chunks no manifest kept will name (and those no manifest names now)
    freed: int  # bytes

    @property
    def logs(self) -> int:
        return sum(1 for entry in self.entries if not entry.side)


def plan_prune(archive: Archive, gone_days: int | None = None, matching: str | None = None,
               today: date | None = None) -> Pruning:
    """The entries of logs gone from disk for at least `gone_days` days whose path holds
    `matching` (either condition left out when not given); with neither, only the chunks no
    manifest names (a killed build's)."""
    entries, _ = archive.entries()
    today = today or date.today()
    chosen = []
    for entry in entries:
        old = gone_days is None or (entry.gone_since is not None
                                    and date.fromisoformat(entry.gone_since) <= today - timedelta(days=gone_days))
        named = not matching or matching in entry.path
        if (gone_days is not None or matching) and old and named:
            chosen.append(entry)
    left = [entry for entry in entries if entry not in chosen]
    objects = archive.unnamed_objects(left)
    return Pruning(chosen, objects, sum(archive.backend.size(name) for name in objects))


def prune(archive: Archive, plan: Pruning) -> None:
    """The planned entries forgotten (manifests first: no manifest ever names a chunk gone),
    then their chunks removed."""
    for entry in plan.entries:
        archive.forget(entry)
    for name in plan.objects:
        archive.backend.delete(name)


def restore(archive: Archive, matching: str = "", to: Path | None = None) -> tuple[list[str], list[str]]:
    """The archived logs whose path holds `matching` written back out, byte-identical: at
    their own path (never over a file there), or below `to` at their whole path. Returns
    what was written and what was not, with why."""
    written, refused = [], []
    entries, _ = archive.entries()
    for entry in entries:
        if matching not in entry.path:
            continue
        source = Path(entry.path)
        target = to / source.relative_to(source.anchor) if to is not None else source
        if target.exists():
            refused.append(f"{target}: already there, left as it is")
            continue
        try:
            write_log(archive, entry, target)
        except Damaged as exc:
            refused.append(f"{entry.path}: the archived copy is damaged ({exc})")
            continue
        except OSError as exc:
            refused.append(f"{target}: {exc.strerror or exc}")
            continue
        written.append(str(target))
    return written, refused
