"""rlm-code (SuperagenticAI/rlm-code): recursive language-model runs with rewards, memory,
variables, child agents and checkpoints.

Seven on-disk shapes, told apart (like the producer's `SessionReplayer`, FORMATS.md (d)) from
the first object only, so discovery stays cheap:
- native SessionEvent JSONL (`event_type` from SessionEventType, ISO timestamps)  -> native.py
- legacy trajectory events (`event_type` run_start/iteration_*, float epoch timestamps) -> trajectory.py
- run files (`type` step/final + `run_id` + `environment`)                            -> runs.py
- snapshot JSON (one object with `snapshot_id` and `steps`; checkpoints too)             -> native.py
- the native agent's journal (`events.jsonl`, dotted `type`s, `sequence`, 0.1.12+)      -> agent.py
- the observability sink's step files and run summaries (`run_id` + `cumulative_reward`) -> observed.py
The agent's journal has gptme's file name, events.jsonl: it is told apart by its content.
Only `event_type` values rlm-code writes are claimed; Codex and Claude also use `type`, so a
run file must have `type` step/final *and* `run_id` *and* `environment`.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from replay_site.model import Fact, Session
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.files import Head, plain_name, read_head
from replay_site.readers.rlm.agent import is_agent_event, read_agent
from replay_site.readers.rlm.native import read_native, read_snapshot
from replay_site.readers.rlm.observed import is_step_line, is_summary_line, read_observed, read_summaries
from replay_site.readers.rlm.runs import read_runs
from replay_site.readers.rlm.trajectory import read_trajectory

Shape = Literal["native", "trajectory", "run", "snapshot", "agent", "steps", "summaries"]
APPROVALS = "approvals.jsonl"  # the agent's approval audit, beside its journal

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


def sniff_head(path: Path, head: Head) -> Shape | None:
    """Which rlm-code shape `path` is, from its first object (or the head of a .json file)."""
    if plain_name(path).suffix == ".json":
        data = head.data[:_SNAPSHOT_HEAD]
        return "snapshot" if data.lstrip().startswith(b"{") and b'"snapshot_id"' in data and b'"session_id"' in data else None
    if plain_name(path).suffix != ".jsonl" and not head.named:
        return None
    first = head.first_object()
    if first is None:
        return None
    if is_agent_event(first):
        return "agent"
    if is_step_line(first):
        return "steps"
    if is_summary_line(first):
        return "summaries"
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


def sniff(path: Path, named: bool = False) -> Shape | None:
    """`sniff_head` of a file discovery did not hand over (at read time, or a run's siblings)."""
    try:
        return sniff_head(path, read_head(path, named))
    except OSError:
        return None


def _run_parent(path: Path, head: Head) -> tuple[str, str | None]:
    first = head.first_object() or {}
    run_id = first.get("run_id") if isinstance(first.get("run_id"), str) else path.name.removesuffix(".jsonl")
    parent = first.get("parent_run_id")
    return run_id, parent if isinstance(parent, str) and parent else None


def _group_runs(info: dict[Path, tuple[str, str | None]], root: Path) -> Iterator[SessionSource]:
    """One source per top-level run, with the run files it delegated to (at any depth) as related."""
    runs = list(info)
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


class RlmReader(FileReader):
    name = "rlm"
    label = "rlm-code"
    env_vars = ("HOME",)  # and the working directory, part of the command line

    def default_dirs(self) -> list[Path]:
        # SessionStore keeps snapshots/checkpoints under ~/.rlm_code/sessions; RLMRunner writes
        # run files under the working directory it was started in.
        # The native agent keeps its journals under the repository it works on, and the
        # observability sink its step files beside the runs folder.
        here = Path.cwd() / ".rlm_code"
        return [Path.home() / ".rlm_code" / "sessions", here / "rlm" / "runs", here / "agent" / "sessions",
                here / "rlm" / "observability"]

    def detect(self, path: Path, head: Head) -> Found | None:
        shape = sniff_head(path, head)
        if shape is None:
            return None
        if shape == "run":
            return Found(shape, *_run_parent(path, head))
        return Found(shape, _recorded_run(shape, head))

    def group(self, found: dict[Path, Found], root: Path) -> Iterator[SessionSource]:
        if not root.is_dir():
            if root in found:
                yield _named_alone(root, found[root])
            return
        runs = {path: (item.run_id or path.stem, item.parent_run) for path, item in sorted(found.items()) if item.shape == "run"}
        # The runner writes a run and its delegated children into one runs/ folder; grouping
        # per folder keeps two copies of the same runs (a backup beside the original) apart.
        run_sources: list[SessionSource] = []
        for folder in sorted({path.parent for path in runs}):
            run_sources.extend(_group_runs({path: run for path, run in runs.items() if path.parent == folder}, root))
        # One run, one session: the session events and snapshots recorded for a run join the
        # run's source (the run file wins: its delegated runs are sessions with steps); without
        # a run file the session events win over the snapshot.
        # Copies of the same runs (a backup beside the original) stay apart: a file joins the
        # source of its run_id that lies nearest to it in the tree.
        # Each group holds one file per shape: a second file of a shape is another copy.
        groups: list[tuple[str, set[str], SessionSource]] = [(runs[s.path][0], {"run"}, s) for s in run_sources]
        for path, item in sorted(found.items(), key=lambda entry: (SHAPE_RANK[entry[1].shape], entry[0])):
            if item.shape == "run":
                continue
            if item.shape == "agent":
                audit = path.parent / APPROVALS
                groups.append(("", {"agent"}, SessionSource("rlm", path, root, (audit,) if audit.is_file() else ())))
                continue
            candidates = [index for index, (run_id, shapes, _) in enumerate(groups)
                          if item.run_id and run_id == item.run_id and item.shape not in shapes]
            if not candidates:
                groups.append((item.run_id or "", {item.shape}, SessionSource("rlm", path, root)))
                continue
            index = max(candidates, key=lambda i: (_shared_depth(groups[i][2].path, path), -i))
            run_id, shapes, source = groups[index]
            groups[index] = (run_id, shapes | {item.shape}, SessionSource("rlm", source.path, root, (*source.related, path)))
        yield from (source for _, _, source in groups)

    def read_sessions(self, source: SessionSource) -> list[Session]:
        shape = sniff(source.path, named=source.path == source.root)
        label = source.label(source.path)
        shapes = {path: sniff(path) for path in source.related}
        recorded_too = [path for path in source.related if shapes[path] != "run"]
        if shape == "run":
            sessions = read_runs([(path, source.label(path)) for path in (source.path, *source.related) if path not in recorded_too])
        elif shape == "native":
            sessions = [read_native(source.path, label)]
        elif shape == "trajectory":
            sessions = [read_trajectory(source.path, label)]
        elif shape == "snapshot":
            sessions = [read_snapshot(source.path, label)]
        elif shape == "agent":
            return [read_agent(source.path, label, tuple((path, source.label(path)) for path in source.related))]
        elif shape == "steps":
            sessions = [read_observed(source.path, label)]
        elif shape == "summaries":
            sessions = [read_summaries(source.path, label)]
        else:
            session = Session(id=source.path.name, format="rlm", source=label)
            session.warn("warning", "not an rlm-code session file (nothing recognisable in its first lines)")
            return [session]
        if recorded_too:
            described = ", ".join(f"{source.label(path)} ({SHAPE_NAMES[shapes[path]]})" for path in recorded_too)
            sessions[0].facts.append(Fact("Also recorded in", described))
            for path in recorded_too:
                _also_recorded(sessions[0], path, shapes[path], source.label(path))
        return sessions


def _also_recorded(run: Session, path: Path, shape: Shape | None, label: str) -> None:
    """A run's session events or snapshot, merged into the session of its run file: its steps
    are the run file's (not shown twice, so its lines are counted as not shown), but the model
    is only written there (session_start, snapshot `model`)."""
    read = {"native": read_native, "snapshot": read_snapshot, "trajectory": read_trajectory, "steps": read_observed}.get(shape or "")
    if read is None:
        return
    other = read(path, label)
    if not run.models:
        run.declared_models.extend(other.models)
    run.problems.extend(problem for problem in other.problems if problem.kind == "bad_line")
    for kinds in other.records.values():
        for kind, lines in kinds.items():
            run.count_record(kind, "not_shown", lines)


@dataclass(frozen=True)
class Found:
    """What discovery learnt of one rlm-code file: its shape and the run it records."""

    shape: Shape
    run_id: str | None
    parent_run: str | None = None


SHAPE_RANK = {"run": 0, "native": 1, "snapshot": 2, "trajectory": 3, "steps": 4, "agent": 5, "summaries": 6}
SHAPE_NAMES = {"run": "run file", "native": "session events", "snapshot": "snapshot", "trajectory": "trajectory",
               "steps": "observed steps", "agent": "agent journal", "summaries": "run summaries"}
_RUN_ID = re.compile(rb'"run_id"\s*:\s*"([^"\\]{1,200})"')


def _shared_depth(one: Path, other: Path) -> int:
    """How many leading path parts two files share."""
    shared = 0
    for mine, theirs in zip(one.parts, other.parts):
        if mine != theirs:
            break
        shared += 1
    return shared


def _recorded_run(shape: Shape, head: Head) -> str | None:
    """The run a session-event file or snapshot records (`run_id`), from its head."""
    if shape in ("native", "steps"):
        first = head.first_object() or {}
        return first.get("run_id") if isinstance(first.get("run_id"), str) and first["run_id"] else None
    if shape == "snapshot":
        found = _RUN_ID.search(head.data[:_SNAPSHOT_HEAD])
        return found.group(1).decode("utf-8", "replace") if found else None
    return None


def _named_alone(root: Path, item: Found) -> SessionSource:
    if item.shape != "run":
        return SessionSource("rlm", root, root)
    # A run file named on its own still brings the child runs delegated from it.
    siblings = {root: (item.run_id or root.stem, item.parent_run)}
    for path in sorted(root.parent.glob("*.jsonl")):
        try:
            head = read_head(path)
        except OSError:
            continue
        if path != root and sniff_head(path, head) == "run":
            siblings[path] = _run_parent(path, head)
    mine = [source for source in _group_runs(dict(sorted(siblings.items())), root) if source.path == root]
    # A child run named on its own (its parent is next to it) is read alone.
    return mine[0] if mine else SessionSource("rlm", root, root)


READER = RlmReader()
