"""rlm-code (SuperagenticAI/rlm-code): recursive language-model runs with rewards, memory,
variables, child agents and checkpoints.

Four on-disk shapes, told apart the way the producer's `SessionReplayer` tells them apart
(FORMATS.md (d)), but from the first object only, so finding stays cheap:
- native SessionEvent JSONL (`event_type` from SessionEventType, ISO timestamps)  -> rlm_native
- legacy trajectory events (`event_type` run_start/iteration_*, float epoch timestamps) -> rlm_trajectory
- run files (`type` step/final + `run_id` + `environment`)                            -> rlm_runs
- snapshot JSON (one object with `snapshot_id` and `steps`; checkpoints too)             -> rlm_native
Only `event_type` values rlm-code writes are claimed; Codex and Claude also use `type`, so a
run file must have `type` step/final *and* `run_id` *and* `environment`.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal

from ..model import Session
from . import SessionSource, jsonl
from .rlm_native import read_native, read_snapshot
from .rlm_runs import read_runs
from .rlm_trajectory import read_trajectory

Shape = Literal["native", "trajectory", "run", "snapshot"]

_NATIVE_ONLY = {
    "session_start", "session_end", "step_start", "step_action", "step_result", "step_end",
    "state_snapshot", "memory_update", "variable_update", "checkpoint",
}
_TRAJECTORY_ONLY = {
    "run_start", "run_end", "iteration_start", "iteration_reasoning", "iteration_code",
    "iteration_output", "iteration_end", "sub_llm_request", "sub_llm_response",
    "context_load", "context_update", "memory_compact",
}
_SHARED = {"llm_request", "llm_response", "child_spawn", "child_result", "final_detected", "error"}
_SNAPSHOT_HEAD = 4096  # snapshot_id is the first key SessionStore writes; the head is enough


def sniff(path: Path) -> Shape | None:
    """Which rlm-code shape `path` is, from its first object (or the head of a .json file)."""
    if path.suffix == ".json":
        try:
            with path.open("rb") as handle:
                head = handle.read(_SNAPSHOT_HEAD)
        except OSError:
            return None
        return "snapshot" if head.lstrip().startswith(b"{") and b'"snapshot_id"' in head and b'"session_id"' in head else None
    if path.suffix != ".jsonl":
        return None
    first = jsonl.first_object(path)
    if first is None:
        return None
    kind = first.get("event_type")
    if isinstance(kind, str):
        if kind in _NATIVE_ONLY:
            return "native"
        if kind in _TRAJECTORY_ONLY:
            return "trajectory"
        if kind in _SHARED:
            # Shared names: the recorder writes ISO strings, the trajectory logger epoch floats.
            return "native" if isinstance(first.get("timestamp"), str) else "trajectory"
        return None
    if first.get("type") in ("step", "final") and "run_id" in first and "environment" in first:
        return "run"
    return None


def _run_parent(path: Path) -> tuple[str, str | None]:
    first = jsonl.first_object(path) or {}
    run_id = first.get("run_id") if isinstance(first.get("run_id"), str) else path.name.removesuffix(".jsonl")
    parent = first.get("parent_run_id")
    return run_id, parent if isinstance(parent, str) and parent else None


def _group_runs(runs: list[Path], root: Path) -> Iterator[SessionSource]:
    """One source per top-level run, with the run files it delegated to (at any depth) as related."""
    info = {path: _run_parent(path) for path in runs}
    by_id = {run_id: path for path, (run_id, _) in info.items()}

    def top(path: Path) -> Path:
        seen = {path}
        while (parent := info[path][1]) in by_id and by_id[parent] not in seen:
            path = by_id[parent]
            seen.add(path)
        return path

    groups: dict[Path, list[Path]] = {}
    for path in runs:
        groups.setdefault(top(path), []).append(path)
    for head, members in groups.items():
        yield SessionSource("rlm", head, root, tuple(sorted(path for path in members if path != head)))


class RlmReader:
    name = "rlm"
    label = "rlm-code"

    def default_dirs(self) -> list[Path]:
        # SessionStore keeps snapshots/checkpoints under ~/.rlm_code/sessions; RLMRunner writes
        # run files under the working directory it was started in.
        return [Path.home() / ".rlm_code" / "sessions", Path.cwd() / ".rlm_code" / "rlm" / "runs"]

    def find(self, root: Path) -> Iterable[SessionSource]:
        if root.is_file():
            shape = sniff(root)
            if shape == "run":
                # A run file named on its own still brings the child runs delegated from it.
                siblings = [path for path in sorted(root.parent.glob("*.jsonl")) if path == root or sniff(path) == "run"]
                mine = [source for source in _group_runs(siblings, root) if source.path == root]
                # A child run named on its own (its parent is next to it) is read alone.
                yield from mine or [SessionSource("rlm", root, root)]
            elif shape:
                yield SessionSource("rlm", root, root)
            return
        if not root.is_dir():
            return
        runs = []
        for path in sorted(root.rglob("*")):
            if not path.is_file():
                continue
            shape = sniff(path)
            if shape == "run":
                runs.append(path)
            elif shape:
                yield SessionSource("rlm", path, root)
        # The runner writes a run and its delegated children into one runs/ folder; grouping
        # per folder keeps two copies of the same runs (a backup beside the original) apart.
        for folder in sorted({path.parent for path in runs}):
            yield from _group_runs([path for path in runs if path.parent == folder], root)

    def read(self, source: SessionSource) -> list[Session]:
        shape = sniff(source.path)
        label = source.label(source.path)
        if shape == "run":
            return read_runs([(path, source.label(path)) for path in (source.path, *source.related)])
        if shape == "native":
            return [read_native(source.path, label)]
        if shape == "trajectory":
            return [read_trajectory(source.path, label)]
        if shape == "snapshot":
            return [read_snapshot(source.path, label)]
        session = Session(id=source.path.name, format="rlm", source=label)
        session.warn("warning", "not an rlm-code session file (nothing recognisable in its first lines)")
        return [session]


READER = RlmReader()
