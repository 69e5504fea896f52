"""What a task does to memory: fewer garbage collections while it runs, and the heap's free
pages given back when it ends; the same in the build's process and in its workers."""
from __future__ import annotations

import ctypes
import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

_NEVER = 1 << 30  # a generation threshold never reached
# A task's young collections come after this many more objects made than freed, not Python's
# 700: a task makes millions of objects that live no longer than a step or a page, and at 700
# the young collections (and the older ones they lead to) walked what was still alive ~1,400
# times in a -j 1 build of the medium benchmark corpus, 0.40 s of its ~11 s of CPU (10 times
# and 0.02 s at this threshold).
_YOUNG_OBJECTS = 10_000
# ... and after this many in the tasks of a session read as a stream, and of its pages rendered
# by range: the first holds a part of 1,000 steps while it prices, redacts and spools them, the
# others a page's views while they render it, and at _YOUNG_OBJECTS each young collection walked
# them again (and moved them to older generations, walked again) to find nearly nothing to free:
# the 10,000-step benchmark session's reading and rendering make no cyclic garbage but 73
# objects. There its 170 collections took 0.22 s of CPU, 0.07 s at this threshold.
_STREAMED_YOUNG_OBJECTS = 50_000


@lru_cache(maxsize=1)
def libc():
    """The C library's symbols as this process has them (not find_library("c"), which runs
    `ldconfig -p` in a subprocess)."""
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def release_freed_memory() -> None:
    """Give the heap's free pages back to the system. glibc keeps them otherwise, so a peak of
    short-lived objects (discovery's file heads, one large session's model) would stay
    counted against the build for the rest of its run."""
    trim = getattr(libc(), "malloc_trim", None)  # glibc only
    if trim is not None:
        trim(0)


_MADV_DONTNEED = 4  # Linux


def drop_library_pages() -> None:
    """Take out of this process's page tables the pages it has read of shared libraries'
    files, their code and read-only data (the kernel's page cache keeps them): loading the
    secret scanner's catalogue runs much of kingfisher's 36 MiB library (its loader, its
    tables), which the scans never run again, and those pages stayed counted against the
    build (~10 MiB on either benchmark corpus). Whatever is run or read again is mapped back
    in from the page cache, as after the kernel itself reclaimed them. Only read-only private
    file mappings without a page of their own (relocated data, text relocations), which hold
    exactly the file's bytes."""
    madvise = getattr(libc(), "madvise", None)
    if madvise is None:
        return
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    try:
        with open("/proc/self/smaps") as smaps:
            mappings = _file_mappings(smaps)
    except OSError:
        return
    for start, end in mappings:
        madvise(start, end - start, _MADV_DONTNEED)


def _file_mappings(smaps) -> list[tuple[int, int]]:
    """The address ranges of the read-only private file mappings in `smaps` (/proc/PID/smaps)
    with no anonymous page."""
    found, current = [], None
    for line in smaps:
        fields = line.split()
        if not fields:
            continue
        if "-" in fields[0] and len(fields) >= 5:  # a mapping's first line: range, perms, offset, device, inode[, path]
            start, end = (int(bound, 16) for bound in fields[0].split("-"))
            current = (start, end) if fields[1] in ("r-xp", "r--p") and len(fields) > 5 and fields[5].startswith("/") else None
        elif fields[0] == "Anonymous:" and current is not None:
            if fields[1] == "0":
                found.append(current)
            current = None
    return found


# A task's freed memory is handed back once the process has grown by this much since it
# last was, not after every task: a -j 1 build of the medium benchmark corpus trimmed 400
# times, and the next tasks faulted the pages given back in again (190,000 page faults, 1.0 s
# of system time; ~30,000 and 0.7 s untrimmed). A large session's peak is still given back.
# At 16 MiB each of the build's processes kept up to that much freed heap: the large
# benchmark corpus's pass 2 peaked 15 MiB higher than at 4 MiB, for no less CPU of a -j 1
# build of the medium one (5 pairs).
_TRIM_AFTER_GROWTH = 4 << 20
_resident_floor: int | None = None  # the least resident size seen since the last trim


def _resident_bytes() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def release_grown_memory() -> None:
    """release_freed_memory() when this process is resident in _TRIM_AFTER_GROWTH more bytes
    than at its least since it last was (always where that cannot be read)."""
    global _resident_floor
    resident = _resident_bytes()
    if resident is not None and _resident_floor is not None and resident - _resident_floor < _TRIM_AFTER_GROWTH:
        _resident_floor = min(_resident_floor, resident)
        return
    release_freed_memory()
    _resident_floor = _resident_bytes()


def run_then_release(function, *args, **kwargs):
    """`function(*args, **kwargs)`, with fewer young collections (_YOUNG_OBJECTS), then what
    its objects held is handed back once they add up (a worker's task: a session's model and
    pages are garbage once the task returns)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _YOUNG_OBJECTS), *thresholds[1:])
    try:
        return function(*args, **kwargs)
    finally:
        gc.set_threshold(*thresholds)
        release_grown_memory()


@contextmanager
def fewer_young_collections() -> Iterator[None]:
    """Young collections after _STREAMED_YOUNG_OBJECTS more objects made than freed, not
    fewer, while a streamed session's part or a range of its pages is worked on."""
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], _STREAMED_YOUNG_OBJECTS), *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


@contextmanager
def young_collections_only() -> Iterator[None]:
    """No full collection while a source's pages are rendered: what they need from all of a
    session's steps lives as long as they take, and each full collection would walk it again.
    Young objects are still collected. Raising the oldest generation's threshold, rather than
    gc.freeze/unfreeze, leaves frozen what worker_pool.load_shared froze before the workers were forked: unfreezing
    it would make the collector write to, and so copy, every page the workers share."""
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], _NEVER)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
