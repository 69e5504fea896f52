"""Aider: `.aider.chat.history.md` in each project it ran in (`--chat-history-file`,
$AIDER_CHAT_HISTORY_FILE, moves it). One file holds every run in that project: each run is
a session (history.py cuts it, steps.py reads it). Its times are the local time Aider wrote.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from replay_site.model import Session
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.aider.history import STARTED, runs
from replay_site.readers.aider.steps import Builder
from replay_site.readers.fields import first_request, user_prompts
from replay_site.readers.files import Head, open_log

HISTORY = ".aider.chat.history.md"
MAX_BYTES = 256 << 20


def _opens_as_history(head: Head) -> bool:
    for raw in head.lines():
        line = raw.decode("utf-8", "replace").strip()
        if line:
            return bool(STARTED.match(line))
    return False


class AiderReader(FileReader):
    name = "aider"
    label = "Aider"
    env_vars = ("AIDER_CHAT_HISTORY_FILE",)
    suffixes = (HISTORY,)

    def default_dirs(self) -> list[Path]:
        """Aider writes into each project, not one folder; $AIDER_CHAT_HISTORY_FILE names one."""
        named = os.environ.get("AIDER_CHAT_HISTORY_FILE")
        return [Path(named).expanduser().parent] if named else []

    def detect(self, path: Path, head: Head) -> bool | None:
        named = Path(os.environ.get("AIDER_CHAT_HISTORY_FILE") or HISTORY).name
        if (path.name in (HISTORY, named) or head.named) and _opens_as_history(head):
            return True
        return None

    def group(self, found: dict[Path, bool], root: Path) -> Iterator[SessionSource]:
        for path in sorted(found):
            yield SessionSource(self.name, path, root)

    def read_sessions(self, source: SessionSource) -> list[Session]:
        label = source.label(source.path)
        try:
            with open_log(source.path) as handle:
                text = handle.read(MAX_BYTES).decode("utf-8", "replace")
        except OSError as exc:
            session = Session(id=source.path.name, format=self.name, source=source.rel, title=source.path.name)
            session.warn("warning", f"unreadable ({exc})")
            return [session]
        sessions: list[Session] = []
        empty: list[tuple[int, int]] = []
        project = source.path.parent.name
        for run in runs(text):
            session = Session(id=f"{project}@{run.started or 'start'}", format=self.name, source=label, local_time=True,
                              cwd=None)
            session.started_at = datetime.fromisoformat(run.started) if run.started else None
            if run.started:
                session.count_record("run start", "not_shown")
            Builder(session).run(run)
            if not any(step.kind in ("user", "assistant") for step in session.steps):
                empty.append((run.line, run.lines))
                continue
            session.title = first_request(user_prompts(session.steps)) or session.id
            session.number_steps()
            sessions.append(session)
        if sessions and empty:  # runs where nothing was asked: their lines are counted, not shown
            sessions[0].count_record("run without a request", "not_shown", lines=sum(lines for _, lines in empty))
        return _distinct_ids(sessions)


READER = AiderReader()


def _distinct_ids(sessions: list[Session]) -> list[Session]:
    """Two runs started in the same second get #2, #3…"""
    seen: dict[str, int] = {}
    for session in sessions:
        seen[session.id] = seen.get(session.id, 0) + 1
        if seen[session.id] > 1:
            session.id = f"{session.id}#{seen[session.id]}"
    return sessions
