"""Publishing a whole site at once, and what replay-site may do to an output folder.

A build writes into a sibling staging folder (`.<name>.replay-site-new-XXXX`) and then swaps
it with the output folder in one step (renameat2 RENAME_EXCHANGE, which the build hands the
writer: runtime/system.py), so a reader — or a kill at any moment — sees exactly the previous
site or exactly the new one. Where that call is missing, two renames are used instead; a kill between them leaves the old site beside the
missing folder, and the next build moves it back.

Deleting follows one rule everywhere: a file goes only if the folder's manifest (which also
marks the folder as replay-site's) lists it, or if the very same file (same inode) sits at the
same place in the live site, so no data is lost, or if it is a symlink the new site replaced
with its own file (the link's target is never touched). Anything else stays, and is reported.
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

MANIFEST = ".replay-site-manifest.json"  # the files a build wrote; its presence marks the folder
PARTIAL = ".replay-site-partial"  # marks a staging folder whose build has not finished
NEW, OLD = ".replay-site-new-", ".replay-site-old-"


class PublishError(Exception):
    """A problem with the output folder the user can fix; its text is one line for them."""


def temp_prefix(out: Path, role: str) -> str:
    return f".{out.name}{role}"


def walk(root: Path) -> Iterator[tuple[str, os.DirEntry]]:
    """Every entry under `root` as (relative posix path, entry), children before their folder,
    never following a symlink (a symlinked folder is an entry, not a folder to enter)."""
    stack = [("", root)]
    pending: list[tuple[str, os.DirEntry]] = []
    while stack:
        prefix, folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                rel = prefix + entry.name
                pending.append((rel, entry))
                if entry.is_dir(follow_symlinks=False):
                    stack.append((rel + "/", Path(entry.path)))
    # deepest paths first, so a folder comes after everything in it
    yield from sorted(pending, key=lambda item: (-item[0].count("/"), item[0]))


def read_manifest(folder: Path) -> set[str] | None:
    try:
        listed = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return {item for item in listed if isinstance(item, str)} if isinstance(listed, list) else None


def foreign_files(out: Path) -> list[str]:
    """Files (and symlinks, and special files) in `out` that its manifest does not list:
    replay-site did not write them. Folders alone are not counted."""
    listed = read_manifest(out) or set()
    return sorted(rel for rel, entry in walk(out)
                  if not entry.is_dir(follow_symlinks=False) and rel != MANIFEST and rel not in listed)


def output_folder(out: Path, sources: Iterable[Path]) -> Path:
    """The folder to publish at (a symlinked output folder is followed once, here), after
    refusing a file or a folder that overlaps a source. Creates its parent. Raises PublishError."""
    try:
        if out.exists() and not out.is_dir():
            raise PublishError(f"the output {out} is a file, not a folder")
        real = out.resolve()
        for source in sources:
            if not isinstance(source, Path):
                continue  # a store's objects cannot overlap a local folder
            source = source.resolve()
            if source == real or real.is_relative_to(source) or source.is_relative_to(real):
                raise PublishError(f"the output folder {out} overlaps the source {source}; choose a folder outside the logs")
        real.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PublishError(f"cannot use the output folder {out}: {exc.strerror or exc}") from None
    return real


def check_writable(out: Path, real: Path, force: bool) -> None:
    """Refuse a folder that cannot be written, or that holds files replay-site did not write
    (unless `force`). Raises PublishError."""
    try:
        for folder in (real, real.parent) if real.exists() else (real.parent,):
            if not os.access(folder, os.W_OK | os.X_OK):
                raise PublishError(f"the folder {folder} is not writable")
        foreign = foreign_files(real) if real.exists() and not force else []
    except OSError as exc:
        raise PublishError(f"cannot use the output folder {out}: {exc.strerror or exc}") from None
    if foreign and read_manifest(real) is None:
        raise PublishError(f"the output folder {out} is not empty and was not written by replay-site; "
                           "choose another folder, or pass --force to build into it (its files are kept)")
    if foreign:
        raise PublishError(f"the output folder {out} holds files replay-site did not write "
                           f"({len(foreign)}, e.g. {foreign[0]}); remove them, or pass --force to keep them in the new site")


def lock(folder: Path) -> int | None:
    """Hold an exclusive lock on `folder` for this process's life (until unlock), so another
    build's recovery leaves a staging folder in use alone. A process forked after it would
    hold it too, as long as it lives: the build forks its workers before it locks. Returns the descriptor; None where
    the file system has no locks (then only a concurrent build into the same folder is
    unprotected). Raises BlockingIOError when another process holds the lock."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def unlock(descriptor: int) -> None:
    os.close(descriptor)


def _in_use(folder: Path) -> bool:
    try:
        descriptor = lock(folder)
    except BlockingIOError:
        return True
    except OSError:
        return False
    if descriptor is not None:
        unlock(descriptor)
    return False


def recover(out: Path) -> list[str]:
    """Undo what killed builds left beside `out`: a site moved aside by an interrupted
    two-rename swap goes back; staging and old folders are emptied by the deletion rule.
    Returns what had to stay (files replay-site did not write)."""
    parent = out.parent
    if not parent.is_dir():
        return []
    stale = sorted(p for p in parent.iterdir()
                   if p.name.startswith((temp_prefix(out, NEW), temp_prefix(out, OLD))) and p.is_dir() and not p.is_symlink())
    if not os.path.lexists(out):
        # both halves of one swap (same suffix) beside a missing folder: cut between its renames
        for aside in [p for p in stale if p.name.startswith(temp_prefix(out, OLD))]:
            if aside.with_name(aside.name.replace(OLD, NEW, 1)) in stale:
                os.rename(aside, out)
                stale.remove(aside)
                break
    kept: list[str] = []
    for folder in stale:
        if not _in_use(folder):
            kept.extend(discard(folder, out))
    return kept


def _same_file(entry: os.DirEntry, other: Path) -> bool:
    try:
        mine, theirs = entry.stat(follow_symlinks=False), other.lstat()
    except OSError:
        return False
    return (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino)


def _replaced_link(entry: os.DirEntry, other: Path) -> bool:
    """A symlink where the new site now has its own file: the link is replaced, its target
    never touched."""
    return entry.is_symlink() and os.path.lexists(other)


def discard(folder: Path, live: Path) -> list[str]:
    """Empty and remove a staging or old-site folder by the deletion rule. A staging folder
    whose build never finished (PARTIAL, no manifest) holds only files this build wrote.
    The manifest and then the partial marker go last, so a kill here leaves a folder the
    next build treats the same way. Returns the paths that stay."""
    listed = read_manifest(folder)
    unfinished = listed is None and (folder / PARTIAL).exists()
    listed = listed or set()
    kept = []
    for rel, entry in walk(folder):
        if rel in (MANIFEST, PARTIAL):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                os.rmdir(entry.path)
            elif unfinished or rel in listed or _same_file(entry, live / rel) or _replaced_link(entry, live / rel):
                os.unlink(entry.path)
            else:
                kept.append(rel)
        except FileNotFoundError:
            pass
        except OSError:
            if not entry.is_dir(follow_symlinks=False):
                kept.append(rel)
    if kept:
        return [f"{folder / rel}" for rel in kept]
    for marker in (MANIFEST, PARTIAL):
        (folder / marker).unlink(missing_ok=True)
    os.rmdir(folder)
    return []


Exchange = Callable[[Path, Path], None]  # two paths swapped in one step (runtime/system.py: renameat2)


def swap(staging: Path, out: Path, exchange: Exchange | None) -> Path | None:
    """Put `staging` in the place of `out`, in one step where `exchange` is given; returns the
    folder now holding the previous site (None when there was none)."""
    if not os.path.lexists(out):
        os.rename(staging, out)
        return None
    if exchange is not None:
        try:
            exchange(staging, out)
            return staging
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                raise
    aside = staging.with_name(staging.name.replace(NEW, OLD, 1))
    os.rename(out, aside)  # a kill from here to the next rename is undone by recover()
    try:
        os.rename(staging, out)
    except BaseException:
        os.rename(aside, out)
        raise
    return aside


def carry_over(out: Path, staging: Path) -> None:
    """--force: hard-link the files replay-site did not write into the new site, and recreate
    their folders with the same permissions and times, so the swap keeps them. A file where
    the new site has one of the same name is not carried: it stays in the old folder, which
    discard() then keeps and reports."""
    folders = []
    ours = (read_manifest(out) or set()) | {MANIFEST, PARTIAL}
    for rel, entry in sorted(walk(out), key=lambda item: item[0]):
        target = staging / rel
        if entry.is_dir(follow_symlinks=False):
            if not os.path.lexists(target) and target.parent.is_dir() and not target.parent.is_symlink():
                target.mkdir()
                folders.append(rel)
            continue
        if rel in ours:
            continue
        if not os.path.lexists(target) and target.parent.is_dir() and not target.parent.is_symlink():
            os.link(entry.path, target, follow_symlinks=False)
    for rel in reversed(folders):  # after their contents, which change a folder's times
        shutil.copystat(out / rel, staging / rel, follow_symlinks=False)


def remove_tree(folder: Path) -> None:
    """A staging folder that was never published: everything in it is this build's."""
    shutil.rmtree(folder, ignore_errors=True)
