"""What a build asks of the archive: discovery, with every log found kept in the archive,
byte-identical copies counted once, and every archived log that left the disk (under the
roots being built) given back as a source read from its archived copy.

A copy is restored, checked against its digests, into a private folder of the cache
(`$XDG_CACHE_HOME/replay-site/archive-copies`) at the same place below a stand-in for its
root, under its own name: the readers read it as any log, and its session keeps its
`source` (the path below its root), hence its page's address.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from replay_site.caches import cache_folder
from replay_site.archive.backends import FILE_MODE, private_folder, write_at_once
from replay_site.archive.folder import Archive, ArchiveError, Damaged, Entry, default_folder
from replay_site.archive.keep import Peers, keep, today
from replay_site.discover import DetectionMemory, DiscoveryError, discover, find_sources, left_out_plugins
from replay_site.model import Hint, Problem
from replay_site.readers import Reader, SessionSource
from replay_site.readers.files import describe_error, is_local, plain_name


SIDE_BYTES = 1 << 20  # a file beside a log, not named after it, is kept up to this size
LOG_NAMES = (".jsonl", ".jsonl.gz", ".jsonl.zst")  # other sessions' logs are their sources' own files


def open_archive(where: str | None, out: object = None) -> Archive:
    """The archive (`--archive` a folder or an s3:// URL, else the default folder), a folder
    refused inside the site `out`."""
    if where and where.startswith("s3://"):
        from replay_site.archive.s3 import S3Backend  # boto3, an extra: only an s3:// archive needs it

        return Archive(S3Backend(where))
    if where and "://" in where:
        raise ArchiveError(f"--archive {where}: an archive is a folder or an s3:// URL")
    folder = Path(where).expanduser().resolve() if where else default_folder()
    if out is not None and is_local(out):
        site = Path(out).resolve()
        if folder == site or site in folder.parents:
            raise ArchiveError(f"--archive {folder}: inside the output folder {site}; the archive is never published")
    return Archive(folder)


def discover_kept(roots: list[Path], readers: list[Reader], problems: list[Problem], memory: DetectionMemory | None,
                  out: object, where: str | None, enabled: bool) -> list[SessionSource]:
    """discover(), and (when `enabled`) every log found kept in the archive at `where`, and
    the archived logs gone from under `roots` added."""
    empty: list[Path] = []
    sources = discover(roots, readers, problems, memory, empty)
    local = [root.resolve() for root in roots if is_local(root)]
    for reader in readers:  # what the agents' settings will delete (Claude Code's cleanupPeriodDays)
        problems.extend(Hint("warning", hint, where) for where, hint in getattr(reader, "hints", lambda _: [])(local))
    local_build = all(is_local(path) for path in (out, *roots))
    archived: list[Entry] = []
    if enabled and local_build:
        archive = open_archive(where, out)
        day = today()
        kept = keep_sources(archive, sources, day, problems)
        restored = recover(archive, roots, {entry.sha256 for entry in kept}, readers, day, problems)
        found = {source.kept_root for source in restored}
        sources += [source.source for source in restored]
        empty = [root for root in empty if root.resolve() not in found]
        archived = archive.entries()[0]
    if local_build:
        rescued = rescue_prompts(local, sources, archived, readers, problems)
        sources += rescued
        empty = [] if rescued else empty  # a projects folder Claude Code emptied may leave only its history
    if empty:
        raise DiscoveryError(f"{empty[0]}: " + (f"no readable session found{left_out_plugins()}" if empty[0].exists() else "no such file or folder"))
    return sources


def keep_sources(archive: Archive, sources: list[SessionSource], day: str, problems: list[Problem]) -> list[Entry]:
    """Every file of the sources kept in the archive, and the files beside them their
    readers may read (side_files); a file that cannot be kept is a warning. Returns the
    entries of the sources' own files."""
    kept = []
    peers: dict[tuple[str, Path], Peers] = {}
    for source in sources:
        files = source.files
        for path in files:
            try:
                kept.append(keep(archive, path, day, peers=peers.setdefault((source.format, source.root), Peers())))
            except OSError as exc:
                problems.append(Problem("warning", f"not archived: {describe_error(exc)}", source.label(path)))
        for path in side_files(files, source.root):
            try:
                keep(archive, path, day, side=True)
            except OSError as exc:
                problems.append(Problem("warning", f"not archived: {describe_error(exc)}", source.label(path)))
    return kept


def side_files(files: tuple[Path, ...], root: Path) -> list[Path]:
    """The files a reader may read beside a session's own, whatever its format: beside each
    file, those named after it (Claude Code's `agent-<id>.meta.json`) and, below the root,
    the small ones that are not logs (gptme's `config.toml`); and what the folder named
    after it holds (Claude Code's `<session>/tool-results/`)."""
    own, found = set(files), set()
    for path in files:
        stem = plain_name(path).stem
        folder = path.parent / stem
        if folder.is_dir():
            found.update(each for each in folder.rglob("*") if each.is_file() and not each.is_symlink())
        try:
            siblings = list(os.scandir(path.parent))
        except OSError:
            continue
        for sibling in siblings:
            if not sibling.is_file(follow_symlinks=False):
                continue
            named = sibling.name.startswith(stem + ".")
            small = path.parent != root and not sibling.name.endswith(LOG_NAMES) and sibling.stat().st_size <= SIDE_BYTES
            if named or small:
                found.add(Path(sibling.path))
    return sorted(found - own)


class Restored(NamedTuple):
    """A source read from the archive, and the root it stands for."""

    source: SessionSource
    kept_root: Path


def recover(archive: Archive, roots: list[Path], on_disk: set[str], readers: list[Reader], day: str,
            problems: list[Problem]) -> list[Restored]:
    """The sessions of the archived logs gone from under `roots` (none whose bytes are still
    on disk elsewhere, `on_disk`: a rollout moved to archived_sessions/), each copy checked;
    a damaged one is a warning and no session."""
    entries, broken = archive.entries()
    problems.extend(Problem("warning", "archive manifest cannot be read; its log is left out", name) for name in broken)
    resolved = [root.resolve() for root in roots]
    gone: dict[Path, list[Entry]] = {}
    for entry in entries:
        path = Path(entry.path)
        root = next((root for root in resolved if root in path.parents), None)
        if root is None or os.path.lexists(path) or (entry.sha256 in on_disk and not entry.side):
            continue
        if entry.gone_since is None:
            entry = replace(entry, gone_since=day)
            archive.save(entry)
        gone.setdefault(root, []).append(entry)
    restored = []
    for root in resolved:
        copies = copies_folder(archive, root)
        since = {}
        for entry in gone.get(root, []):
            target = copies / Path(entry.path).relative_to(root)
            try:
                restore(archive, entry, target)
            except Damaged as exc:
                problems.append(Problem("warning", f"archived copy {entry.key[:12]} of {entry.path} is damaged ({exc}); "
                                        "not rendered", Path(entry.path).relative_to(root).as_posix()))
                continue
            since[target] = entry.first_seen
        _drop_others(copies, set(since))
        if since:
            for source in find_sources(copies, readers, problems):
                first = min(since.get(path, "9999") for path in source.files)
                restored.append(Restored(replace(source, kept_since=first), root))
    return restored


def rescue_prompts(roots: list[Path], sources: list[SessionSource], archived: list[Entry], readers: list[Reader],
                   problems: list[Problem]) -> list[SessionSource]:
    """The sessions an agent's history still lists whose log is neither on disk nor in the
    archive (Claude Code's history.jsonl), as their readers give them (`rescued`): their
    prompts only, from files in a private folder of the cache."""
    known = {plain_name(path).stem for source in sources for path in source.files}
    known.update(plain_name(Path(entry.path)).stem for entry in archived)
    folder = private_folder(cache_folder() / "history-prompts" / _short("\0".join(sorted(map(str, roots)))))
    rescued = []
    for reader in readers:
        if (rescue := getattr(reader, "rescued", None)) is not None:
            rescued += rescue(roots, known, folder, problems)
    _drop_others(folder, {source.path for source in rescued})
    return rescued


def _short(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def copies_folder(archive: Archive, root: Path) -> Path:
    """Where the archived logs gone from under `root` are restored for the readers (private)."""
    return private_folder(cache_folder() / "archive-copies" / _short(archive.where) / _short(str(root)))


def restore(archive: Archive, entry: Entry, target: Path) -> None:
    """The entry's log written at `target`, its bytes checked as they are read; `target`
    left untouched when it holds them already (its stat then stays the same, and so does the
    build cache's answer). Raises Damaged, leaving nothing at `target`."""
    private_folder(target.parent)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as stream:
            for data in archive.read(entry):
                stream.write(data)
        if _sha256(target) == entry.sha256:
            os.unlink(temporary)
            return
        os.chmod(temporary, FILE_MODE)
        os.replace(temporary, target)
        os.utime(target, ns=(entry.stat[0], entry.stat[0]))
    except Damaged:
        Path(temporary).unlink(missing_ok=True)
        target.unlink(missing_ok=True)
        raise
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise Damaged(f"cannot be restored: {describe_error(exc)}") from None


def write_log(archive: Archive, entry: Entry, target: Path) -> None:
    """`archive restore`: the log written back out at `target`, byte-identical, with its
    modification time; raises Damaged (nothing written) or OSError."""
    target.parent.mkdir(parents=True, exist_ok=True)
    write_at_once(target, archive.read(entry))
    os.utime(target, ns=(entry.stat[0], entry.stat[0]))


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _drop_others(copies: Path, wanted: Iterable[Path]) -> None:
    """Restored copies of logs that are back on disk, pruned or damaged: removed."""
    keep_these = set(wanted)
    for folder, _, names in os.walk(copies):
        for name in names:
            path = Path(folder) / name
            if path not in keep_these:
                path.unlink(missing_ok=True)
