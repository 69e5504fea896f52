"""Pi: `~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl` (`$PI_CODING_AGENT_DIR/sessions`).

The first line is the header (`{"type":"session","version":3,"id","timestamp","cwd"}`; v1
files have no `version`, and their entries no `id`/`parentId`). Every later line is an entry
of a tree: going back to an earlier message and sending another starts a branch in the same
file, and the session goes on from the last entry. Entries off the path from the last entry
to the root are the branches left: shown folded (they ran and were billed). A session forked
from another (`/fork`, `parentSession` in its header) starts with copies of the other's
entries, which are the parent's and counted there: they are folded into one step.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from replay_site.model import Session, Step
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.fields import abandon, first_request, mapping, string, user_prompts
from replay_site.readers.files import Head, families, moved_folder, plain_name
from replay_site.readers.jsonl import iter_objects, kind_of
from replay_site.readers.pi.steps import LINE_KINDS, Builder
from replay_site.readers.timestamps import parse_time

ENTRY_KINDS = frozenset({"message", "model_change", "thinking_level_change", "compaction", "branch_summary",
                         "custom", "custom_message", "label", "session_info"})


def is_pi_header(first: dict[str, Any] | None) -> bool:
    return (isinstance(first, dict) and kind_of(first) == "session" and isinstance(first.get("id"), str)
            and "payload" not in first and isinstance(first.get("cwd"), str))


def is_pi_entry(entry: dict[str, Any]) -> bool:
    """A Pi entry: a known type with the tree's `parentId`, or (v1) a message entry wrapping
    its AgentMessage (Codex's look-alike lines carry `role` at the top)."""
    kind = kind_of(entry)
    return kind in ENTRY_KINDS and ("parentId" in entry or isinstance(entry.get("message"), dict))


def looks_like_pi(head: Head) -> bool:
    """Pi by content: its header, then entries of its own (or a header whose `version`
    numbers the session format, when no entry follows yet)."""
    objects = head.objects(8)
    if not objects or not is_pi_header(objects[0]):
        return False
    rest = objects[1:]
    if rest:
        return all(is_pi_entry(entry) or kind_of(entry) not in ENTRY_KINDS for entry in rest) and any(map(is_pi_entry, rest))
    return isinstance(objects[0].get("version"), int)


class PiReader(FileReader):
    name = "pi"
    label = "Pi"
    env_vars = ("PI_CODING_AGENT_DIR",)

    def default_dirs(self) -> list[Path]:
        """Pi's `getAgentDir()`: $PI_CODING_AGENT_DIR, else ~/.pi/agent; sessions below it."""
        return [moved_folder("PI_CODING_AGENT_DIR", Path.home() / ".pi" / "agent") / "sessions"]

    def detect(self, path: Path, head: Head) -> dict[str, str] | None:
        if plain_name(path).suffix != ".jsonl" and not head.named:
            return None
        if not looks_like_pi(head):
            return None
        first = head.objects(1)[0]
        return {"id": first["id"], "parent": string(first.get("parentSession")) or ""}

    def group(self, found: dict[Path, dict[str, str]], root: Path) -> Iterator[SessionSource]:
        """A session with the sessions forked from it (their header names its file or id)."""
        by_key: dict[str, Path] = {}
        for path, said in found.items():
            by_key.setdefault(said["id"], path)
            by_key.setdefault(str(path), path)
            by_key.setdefault(path.name, path)
        parent_of = {path: up for path, said in found.items() if said["parent"]
                     and (up := by_key.get(said["parent"]) or by_key.get(Path(said["parent"]).name)) is not None}

        for main, members in sorted(families(found, parent_of).items()):
            yield SessionSource(self.name, main, root, tuple(p for p in members if p != main))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        sessions: dict[Path, Session] = {}
        entries_of: dict[Path, set[str]] = {}
        parent_of: dict[Path, str] = {}
        for path in (source.path, *source.related):
            session, ids, parent = _read(path, source, entries_of)
            sessions[path], entries_of[path] = session, ids
            if parent:
                parent_of[path] = parent
        main = sessions[source.path]
        for path in source.related:
            parent = _parent_path(parent_of.get(path, ""), sessions)
            holder = sessions.get(parent) or main
            child = sessions[path]
            child.parent_id, child.relation = holder.id, "fork"
            holder.children.append(child)
        return [main]


READER = PiReader()


def _parent_path(named: str, sessions: dict[Path, Session]) -> Path | None:
    for path, session in sessions.items():
        if named and (str(path) == named or path.name == Path(named).name or session.id == named):
            return path
    return None


def _read(path: Path, source: SessionSource, earlier: dict[Path, set[str]]) -> tuple[Session, set[str], str]:
    """One file's session, the ids of its entries and the parent it names. Entries a fork
    copied from a session read before it are folded into one step and not counted again."""
    label = source.label(path)
    session = Session(id=path.stem, format=READER.name, source=label)
    builder = Builder(session)
    entries: list[tuple[int, dict[str, Any]]] = []
    header: dict[str, Any] = {}
    try:
        for line, entry in iter_objects(path, session.problems, label, session.records, LINE_KINDS):
            if not header and kind_of(entry) == "session":
                header = entry
                continue
            entries.append((line, entry))
    except OSError as exc:
        session.warn("warning", f"unreadable ({exc})")
    parent = string(header.get("parentSession")) or ""
    session.id = string(header.get("id")) or session.id
    session.cwd = string(header.get("cwd"))
    session.agent_version = f"session format v{header['version']}" if isinstance(header.get("version"), int) else None
    session.started_at = parse_time(header.get("timestamp"))
    inherited = set().union(*(ids for other, ids in earlier.items() if other != path)) if parent else set()
    copied = [line for line, entry in entries if string(entry.get("id")) in inherited]
    ids = {entry["id"] for _, entry in entries if isinstance(entry.get("id"), str)}
    for line, entry in entries:
        if string(entry.get("id")) not in inherited:
            builder.add(line, entry)
    builder.finish()
    if copied:
        session.steps.insert(0, Step("event", title="Copied from the session it was forked from", collapsed=True,
                                     text=f"The first {len(copied)} entries of this session are the other session's "
                                          f"(lines {copied[0]}-{copied[-1]}); they are counted there."))
    _fold_left_branches(session, builder.entry_of, entries)
    if session.steps:
        session.ended_at = max((step.timestamp for step in session.steps if step.timestamp), default=None)
    if entries and mapping(entries[-1][1].get("message")).get("stopReason") == "aborted":
        session.outcome = "interrupted"
    session.title = session.title or first_request(user_prompts(session.steps)) or session.id
    session.number_steps()
    return session, ids, parent


def _fold_left_branches(session: Session, entry_of: dict[int, str], entries: list[tuple[int, dict[str, Any]]]) -> None:
    """Steps whose entry is off the path from the last entry back to the root: a branch the
    user left by going back to an earlier message."""
    parents = {entry["id"]: string(entry.get("parentId")) for _, entry in entries if isinstance(entry.get("id"), str)}
    if not parents:
        return
    leaf = next((entry["id"] for _, entry in reversed(entries) if isinstance(entry.get("id"), str)), None)
    path: set[str] = set()
    while isinstance(leaf, str) and leaf not in path:
        path.add(leaf)
        leaf = parents.get(leaf)
    for step in session.steps:
        ident = entry_of.get(id(step))
        if ident is not None and ident not in path:
            abandon(step, "Branch left")
