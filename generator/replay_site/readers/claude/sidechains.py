"""Subagent lines old Claude Code versions (1.0.x) wrote into the main transcript
(`isSidechain: true`): split off, one run per sidechain root, so the conversation reads
straight and their tokens are counted once, in the child session each run becomes."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from replay_site.readers.claude.dag import Row, parent_of


def split_sidechains(rows: list[Row]) -> tuple[list[Row], dict[str, list[Row]]]:
    """Old versions wrote subagent (sidechain) lines into the main file: they become child sessions
    of their own, so the conversation reads straight and their tokens are counted once, in the child."""
    if not any(obj.get("isSidechain") is False for _, obj in rows):
        return rows, {}  # a subagent's own file, or a log that does not say
    main: list[Row] = []
    inline: dict[str, list[Row]] = defaultdict(list)
    sidechain = {obj["uuid"]: obj for _, obj in rows if obj.get("isSidechain") is True and isinstance(obj.get("uuid"), str)}
    written = {obj["uuid"] for _, obj in rows if isinstance(obj.get("uuid"), str)}
    roots: dict[str, str] = {}
    last: str | None = None
    for row in rows:
        if row[1].get("isSidechain") is True:
            # One child per sidechain root: each Task run starts a tree of its own, and old
            # versions wrote no agentId to tell two runs apart. A line whose parent is not in
            # the file at all (a retry or progress line left out) goes on the run written
            # last, rather than starting a child of its own.
            key = _sidechain_key(row[1], sidechain, roots, written)
            last = key = key if key is not None or last is None else last
            inline[key or _own_key(row[1])].append(row)
        else:
            main.append(row)
    return main, dict(inline)


def _sidechain_key(obj: dict[str, Any], sidechain: dict[str, dict[str, Any]], roots: dict[str, str],
                   written: set[str]) -> str | None:
    """The agentId of the sidechain's root line, else the root's uuid; None when the walk up
    reaches a parent the file does not hold (and no agentId says whose line it is)."""
    path, current = [], obj
    while True:
        uuid = current.get("uuid")
        if isinstance(uuid, str) and uuid in roots:
            key: str | None = roots[uuid]
            break
        parent = parent_of(current)
        if parent is None or parent not in sidechain or parent in path:
            agent = current.get("agentId") or obj.get("agentId")
            missing = parent is not None and parent not in written
            key = str(agent) if agent else (None if missing else _own_key(current))
            break
        path.append(uuid)
        current = sidechain[parent]
    if key is not None:
        for uuid in path:
            if isinstance(uuid, str):
                roots[uuid] = key
    return key


def _own_key(obj: dict[str, Any]) -> str:
    uuid = obj.get("uuid")
    return uuid if isinstance(uuid, str) else "sidechain"
