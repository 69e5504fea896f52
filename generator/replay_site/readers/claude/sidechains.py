"""Subagent lines old Claude Code versions (1.0.x) wrote into the main transcript
(`isSidechain: true`): split off, one run per sidechain root, so the conversation reads
straight and their tokens are counted once, in the child session each run becomes."""
from __future__ import annotations

from collections import defaultdict

from replay_site.readers.claude.shape import MISSING, NO_UUID, NOT_SIDECHAIN, SIDECHAIN, Shape


def split_sidechains(shape: Shape) -> tuple[Shape, dict[str, Shape]]:
    """Old versions wrote subagent (sidechain) lines into the main file: they become child sessions
    of their own, so the conversation reads straight and their tokens are counted once, in the child."""
    flags = shape.flags
    if not any(flag & NOT_SIDECHAIN for flag in flags):
        return shape, {}  # a subagent's own file, or a log that does not say
    if not any(flag & SIDECHAIN for flag in flags):
        return shape, {}
    main: list[int] = []
    inline: dict[str, list[int]] = defaultdict(list)
    # by uuid number: the last sidechain line that has it
    sidechain = {shape.uids[index]: index for index in shape.sidechain_uuids}
    roots: dict[int, str] = {}
    last: str | None = None
    for index, flag in enumerate(flags):
        if flag & SIDECHAIN:
            # One child per sidechain root: each Task run starts a tree of its own, and old
            # versions wrote no agentId to tell two runs apart. A line whose parent is not in
            # the file at all (a retry or progress line left out) goes on the run written
            # last, rather than starting a child of its own.
            key = _sidechain_key(shape, index, sidechain, roots)
            last = key = key if key is not None or last is None else last
            inline[key or _own_key(shape, index)].append(index)
        else:
            main.append(index)
    return shape.select(main), {key: shape.select(indexes) for key, indexes in inline.items()}


_AGENT = 1  # agentId's place in shape.CONTEXT_KEYS


def _sidechain_key(shape: Shape, index: int, sidechain: dict[int, int], roots: dict[int, str]) -> str | None:
    """The agentId of the sidechain's root line, else the root's uuid; None when the walk up
    reaches a parent the file does not hold (and no agentId says whose line it is)."""
    path, current = [], index
    while True:
        uid = shape.uids[current]
        if uid in roots:
            key: str | None = roots[uid]
            break
        parent = shape.parents[current]
        if parent == NO_UUID or parent not in sidechain or parent in path:
            agent = shape.context(current)[_AGENT] or shape.context(index)[_AGENT]
            missing = parent == MISSING
            key = str(agent) if agent else (None if missing else _own_key(shape, current))
            break
        path.append(uid)
        current = sidechain[parent]
    if key is not None:
        for uid in path:
            if uid >= 0:
                roots[uid] = key
    return key


def _own_key(shape: Shape, index: int) -> str:
    return shape.sidechain_uuids.get(index, "sidechain")
