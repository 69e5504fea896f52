"""OpenCode: `$XDG_DATA_HOME/opencode/` (default ~/.local/share/opencode): `opencode.db`, and
before that `storage/` (storage.py has both layouts).

Discovery finds a database by its name and SQLite header, and a session of storage/ by its
info file (`storage/session/<projectID>/ses_….json`), whose messages and parts are read with
it. A subagent (the task tool) runs in a session of its own whose `parentID` names the
session that started it; it is read as that session's child, its task call linked to it.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from replay_site.model import Session
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.fields import first_request, mapping, string, user_prompts
from replay_site.readers.files import BOM, Head, families, moved_folder
from replay_site.readers.opencode.steps import ABORTED, Builder
from replay_site.readers.opencode.storage import Stored, from_database, from_files, message_files, part_files
from replay_site.readers.sqlite import SQLITE_MAGIC
from replay_site.readers.timestamps import parse_time

# Content of OpenCode's database no other agent's holds: its part table's column (a whole
# name: Crush's sessions have a `summary_message_id`).
MARKER = re.compile(rb'[\s,(`"]message_id[`"\s]')
# The titles OpenCode gives a session before it has one of its own (`Session.createDefaultTitle`).
DEFAULT_TITLES = ("New session - ", "Child session - ")


def _info_file(path: Path, head: Head) -> dict[str, Any] | None:
    """A storage/ session info file: `session/<projectID>/<id>.json` holding OpenCode's session
    info (pretty-printed, so read whole from the head)."""
    if path.suffix != ".json" or path.parent.parent.name != "session" or not head.complete:
        return None
    try:
        info = orjson.loads(head.data.removeprefix(BOM))
    except orjson.JSONDecodeError:
        return None
    if not isinstance(info, dict) or not str(info.get("id", "")).startswith("ses") or not isinstance(info.get("time"), dict):
        return None
    return info if "projectID" in info or "directory" in info else None


class OpenCodeReader(FileReader):
    name = "opencode"
    label = "OpenCode"
    env_vars = ("XDG_DATA_HOME", "OPENCODE_DB")
    suffixes = (".db",)

    def default_dirs(self) -> list[Path]:
        """OpenCode's `Global.Path.data`: xdg-basedir's data folder, then `opencode`; and the
        folder of a database $OPENCODE_DB moves elsewhere."""
        folders = [moved_folder("XDG_DATA_HOME", Path.home() / ".local" / "share") / "opencode"]
        moved = _moved_database()
        if moved is not None and moved.is_absolute() and moved.parent not in folders:
            folders.append(moved.parent)
        return folders

    def detect(self, path: Path, head: Head) -> tuple[str, str, str] | None:
        """("db", "", "") for a database; ("files", id, parent id) for a session info file."""
        if path.suffix == ".db":
            moved = _moved_database()
            by_name = path.name.startswith("opencode") or (moved is not None and path.name == moved.name)
            # A database named on the command line, whatever its name, by its schema's text
            by_content = head.named and MARKER.search(head.data) is not None
            return ("db", "", "") if head.data.startswith(SQLITE_MAGIC) and (by_name or by_content) else None
        info = _info_file(path, head)
        return ("files", str(info["id"]), string(info.get("parentID")) or "") if info else None

    def group(self, found: dict[Path, tuple[str, str, str]], root: Path) -> Iterator[SessionSource]:
        files = {path: said for path, said in found.items() if said[0] == "files"}
        by_id = {said[1]: path for path, said in sorted(files.items())}

        parent_of = {path: by_id[said[2]] for path, said in files.items() if said[2] in by_id}
        sources = [SessionSource(self.name, main, root, tuple(_family_files(main, members)))
                   for main, members in families(files, parent_of).items()]
        for path, said in found.items():
            if said[0] == "db":
                wal = path.with_name(path.name + "-wal")
                sources.append(SessionSource(self.name, path, root, (wal,) if wal.is_file() else ()))
        yield from sorted(sources, key=lambda source: str(source.path))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        if source.path.suffix == ".db":
            stored, problems = from_database(source.path, source.rel)
        else:
            family = [source.path, *(p for p in source.related if p.parent.parent.name == "session")]
            stored, problems = [from_files(path, source.label) for path in family], []
        sessions = [_session(each, source) for each in stored]
        tops = _nest(sessions)
        if problems:
            holder = tops[0] if tops else Session(id=source.path.stem, format=self.name, source=source.rel, title=source.path.name)
            holder.problems[:0] = problems
            tops = tops or [holder]
        return tops


READER = OpenCodeReader()


def _moved_database() -> Path | None:
    """$OPENCODE_DB: the database's path (relative ones are under the data folder)."""
    named = os.environ.get("OPENCODE_DB")
    return Path(named).expanduser() if named and named != ":memory:" else None


def _family_files(main: Path, members: list[Path]) -> Iterator[Path]:
    """The other session files of the family, and every session's message and part files."""
    for member in members:
        if member != main:
            yield member
        for message in message_files(member):
            yield message
            yield from part_files(message)


def _session(stored: Stored, source: SessionSource) -> Session:
    info = stored.info
    session = Session(id=stored.id, format=READER.name, source=stored.where or source.rel, problems=list(stored.problems))
    session.count_record("session", "not_shown")
    session.cwd = string(info.get("directory"))
    session.agent_version = string(info.get("version"))
    times = mapping(info.get("time"))
    session.started_at, session.ended_at = parse_time(times.get("created")), parse_time(times.get("updated"))
    session.parent_id = stored.parent
    Builder(session, stored).build()
    title = string(info.get("title"))
    session.title = (title if title and not title.startswith(DEFAULT_TITLES) else None) \
        or first_request(user_prompts(session.steps)) or session.id
    last = stored.messages[-1].info if stored.messages else {}
    if mapping(last.get("error")).get("name") == ABORTED:
        session.outcome = "interrupted"
    session.number_steps()
    return session


def _nest(sessions: list[Session]) -> list[Session]:
    """Subagent sessions under the session that started them; the others at the top."""
    by_id = {session.id: session for session in sessions}
    tops = []
    for session in sessions:
        parent = by_id.get(session.parent_id) if session.parent_id else None
        if parent is not None and parent is not session:
            parent.children.append(session)
        else:  # its parent is not in this store (or is itself)
            session.parent_id = None
            tops.append(session)
    return tops
