"""Helpers for tests of a build's processes, read from /proc (Linux): who descends from whom,
whether one still runs, and what it runs."""
from __future__ import annotations

import time
from pathlib import Path

from replay_site.runtime.processes import WORKER_NAME


def children_of() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def descendants(pid: int) -> set[int]:
    tree, found, todo = children_of(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def survivors(pids: set[int], seconds: float = 5.0) -> set[int]:
    """Those of `pids` still running after giving them `seconds` to go."""
    deadline = time.monotonic() + seconds
    alive = {pid for pid in pids if running(pid)}
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = {pid for pid in alive if running(pid)}
    return alive


def command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def workers_in(family: set[int]) -> bool:
    """Whether a worker runs among `family`: every worker names itself (worker_pool.WORKER_NAME),
    whether forked from the build, by its fork server or spawned."""
    return any(name(pid) == WORKER_NAME.decode() for pid in family)
