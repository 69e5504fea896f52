"""OpenAI Codex CLI rollouts (every on-disk generation) -> Sessions.

detect() sees each file's first object only; group() puts a family (a session, its
forks, its subagents, stale copies of the same rollout) into one SessionSource so
read() can link them both ways. The line shapes live in shapes.py, the step
building in build.py, tool calls and their results in calls.py (outputs in
outputs.py, edits in patch.py).
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from replay_site.model import Problem, RecordCounts, Session, count_record, no_records
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.codex.agents import copied_step
from replay_site.readers.codex.build import LINE_KINDS, Builder
from replay_site.readers.codex.forks import agent_path, copies_history, forked_from, is_subagent, own_start, parent_thread
from replay_site.readers.codex.shapes import Record, load_records, shape_of, simplified_head
from replay_site.readers.files import Head, plain_name

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_TS_HEAD = re.compile(rb'^\s*\{\s*"session"\s*:')


def _detect(path: Path, head: Head) -> tuple[str, dict[str, Any], int] | None:
    """(session id, meta, size) of a Codex file from its head alone; None when it is not Codex."""
    if plain_name(path).suffix == ".json":
        if not _TS_HEAD.match(head.data[:256]):
            return None
        found = _UUID.search(path.name)
        return (found.group(0) if found else path.stem), {}, head.size
    first = head.first_object()
    shape = shape_of(first)
    if shape is None or first is None or (shape == "simplified" and not simplified_head(head.objects(8))):
        return None
    meta = first.get("payload", first) if shape == "envelope" else first
    if shape == "envelope" and first.get("type") != "session_meta":
        meta = {}
    ident = meta.get("id") or meta.get("session_id")
    if not ident:
        found = _UUID.search(path.name)
        ident = found.group(0) if found else path.stem
    return str(ident), meta, head.size


class CodexReader(FileReader):
    name = "codex"
    label = "Codex CLI"
    env_vars = ("CODEX_HOME", "HOME")

    def default_dirs(self) -> list[Path]:
        """sessions/, and archived_sessions/, where Codex moves old rollouts (a rollout found in
        both is read once: discovery passes over byte-identical copies)."""
        home = Path(os.environ["CODEX_HOME"]).expanduser() if os.environ.get("CODEX_HOME") else Path.home() / ".codex"
        return [home / "sessions", home / "archived_sessions"]

    def detect(self, path: Path, head: Head) -> tuple[str, dict[str, Any], int] | None:
        return _detect(path, head)

    def group(self, found: dict[Path, tuple[str, dict[str, Any], int]], root: Path) -> list[SessionSource]:
        # Union the ids of one family: same id (copies of one rollout), forks, subagents.
        parent_of: dict[str, str] = {}
        for ident, meta, _ in found.values():
            link = forked_from(meta) or parent_thread(meta)
            if link and str(link) != ident:
                parent_of[ident] = str(link)
        known = {ident for ident, _, _ in found.values()}

        def top(ident: str) -> str:
            seen = {ident}
            while parent_of.get(ident) in known and parent_of[ident] not in seen:
                ident = parent_of[ident]
                seen.add(ident)
            return ident

        families: dict[str, list[Path]] = {}
        for path, (ident, _, _) in found.items():
            families.setdefault(top(ident), []).append(path)
        sources = []
        for root_id, paths in families.items():
            own = [p for p in paths if found[p][0] == root_id]
            main = max(own, key=lambda p: (found[p][2], str(p)))
            related = tuple(sorted(p for p in paths if p != main))
            sources.append(SessionSource(self.name, main, root, related))
        return sorted(sources, key=lambda s: str(s.path))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        by_id: dict[str, tuple[Path, list[Record], list[Problem]]] = {}
        counted: dict[Path, RecordCounts] = {}
        notes: list[Problem] = []
        for path in source.files:
            problems: list[Problem] = []
            label = source.label(path)
            counted[path] = no_records()
            try:
                records = load_records(path, label, problems, counted[path], LINE_KINDS)
            except OSError as exc:
                notes.append(Problem("bad_line", f"unreadable file ({exc})", label))
                continue
            ident = _ident(records, path)
            if ident in by_id:
                # A second file with the same thread id is an older copy of one rollout (Codex appends
                # on resume); reading both would show every step twice, so the longer one wins.
                kept, dropped = sorted([by_id[ident], (path, records, problems)], key=lambda e: len(e[1]), reverse=True)
                notes.append(Problem("warning", f"same session as {source.label(kept[0])}, which holds more lines: not read again", source.label(dropped[0])))
                by_id[ident] = kept
                _count_as_copy(counted[kept[0]], counted.pop(dropped[0]))
            else:
                by_id[ident] = (path, records, problems)
        sessions: dict[str, Session] = {}
        metas: dict[str, dict[str, Any]] = {}
        spawned: dict[str, str] = {}  # child thread id -> parent id, from the parent's spawn events
        for ident, (path, records, problems) in by_id.items():
            meta = next((r.payload for r in records if r.kind == "session_meta"), {})
            metas[ident] = meta
            copied: list[Record] = []
            if copies_history(meta, records) and records and records[0].kind == "session_meta":
                origin = forked_from(meta) or parent_thread(meta) or ""
                parent = by_id.get(origin)
                start = own_start(records, meta, parent[1] if parent else None)
                if start is None and forked_from(meta):
                    problems.append(Problem("warning", "forked from a session not found here: its copied history is shown too", source.label(path)))
                elif start is not None:
                    records, copied = records[:1] + records[start:], records[1:start]
            session = Session(ident, self.name, source=source.label(path), records=counted[path])
            builder = Builder(session, records, problems)
            builder.build()
            if copied:
                session.steps.insert(0, copied_step(copied, origin))
            session.problems.extend(problems)
            session.number_steps()
            sessions[ident] = session
            for child in builder.tools.spawned.values():
                spawned.setdefault(child, ident)
        roots: list[Session] = []
        for ident, session in sessions.items():
            meta = metas[ident]
            fork_of = forked_from(meta)
            parent_id = parent_thread(meta) or fork_of or spawned.get(ident)
            if parent_id:
                session.parent_id = parent_id
                # A subagent's own tokens are its parent's bill, forked context or not; a fork the user made is not.
                session.relation = "fork" if fork_of and not is_subagent(meta) else "subagent"
            parent = sessions.get(parent_id or "")
            if parent is not None and parent is not session:
                parent.children.append(session)
                _link_by_task_name(parent, session, meta)
            else:
                roots.append(session)
        if roots:
            roots[0].problems[:0] = notes
        return roots


def _link_by_task_name(parent: Session, child: Session, meta: dict[str, Any]) -> None:
    """MultiAgent V2 addresses a child by path (`/root/lint_check`), named by the spawn call's
    `task_name`: the link when no event or output gave the child's thread id."""
    task = agent_path(meta).rpartition("/")[2]
    if not task or any(call.child_session_id == child.id for step in parent.steps for call in step.tool_calls):
        return
    for step in parent.steps:
        for call in step.tool_calls:
            if call.name == "spawn_agent" and call.child_session_id is None and isinstance(call.arguments, dict) \
                    and call.arguments.get("task_name") == task:
                call.child_session_id = child.id
                step.child_session_ids.append(child.id)
                return
def _count_as_copy(kept: RecordCounts, copy: RecordCounts) -> None:
    """The lines of an older copy of a rollout, not shown by design: counted with the copy kept."""
    for counts in copy.values():
        for kind, lines in counts.items():
            count_record(kept, kind, "not_shown", lines)


def _ident(records: list[Record], path: Path) -> str:
    for record in records:
        if record.kind == "session_meta":
            ident = record.payload.get("id") or record.payload.get("session_id")
            if ident:
                return str(ident)
            break
    found = _UUID.search(path.name)
    return found.group(0) if found else path.stem


READER = CodexReader()
