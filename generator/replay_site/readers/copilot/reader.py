"""GitHub Copilot CLI: `~/.copilot/session-state/<session>/events.jsonl` ($COPILOT_HOME moves
~/.copilot); before the folder per session, `session-state/<session>.jsonl`, the same events.
events.py reads them."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from replay_site.model import Session
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.copilot.events import LINE_KINDS, Builder
from replay_site.readers.fields import first_request, mapping, user_prompts
from replay_site.readers.files import Head, moved_folder, plain_name
from replay_site.readers.jsonl import iter_objects, kind_of
from replay_site.readers.timestamps import parse_time

OPENING = ("session.start", "session.resume")


def is_event(value: dict[str, Any]) -> bool:
    """The envelope every Copilot CLI line has: a dotted `type`, an `id`, the `parentId` chain
    (null on the first) and a `data` object."""
    kind = kind_of(value)
    return bool(kind) and "." in kind and isinstance(value.get("id"), str) and "parentId" in value \
        and isinstance(value.get("data"), dict)


def looks_like_copilot(head: Head) -> bool:
    objects = head.objects(8)
    if not objects or not all(map(is_event, objects)):
        return False
    first = objects[0]
    data = mapping(first.get("data"))
    return kind_of(first) in OPENING and ("copilotVersion" in data or "sessionId" in data or "resumeTime" in data)


class CopilotReader(FileReader):
    name = "copilot"
    label = "GitHub Copilot CLI"
    env_vars = ("COPILOT_HOME",)

    def default_dirs(self) -> list[Path]:
        return [moved_folder("COPILOT_HOME", Path.home() / ".copilot") / "session-state"]

    def detect(self, path: Path, head: Head) -> bool | None:
        if plain_name(path).suffix != ".jsonl" and not head.named:
            return None
        return True if looks_like_copilot(head) else None

    def group(self, found: dict[Path, bool], root: Path) -> Iterator[SessionSource]:
        for path in sorted(found):
            yield SessionSource(self.name, path, root)

    def read_sessions(self, source: SessionSource) -> list[Session]:
        path = source.path
        fallback = path.parent.name if plain_name(path).name == "events.jsonl" else plain_name(path).stem
        session = Session(id=fallback, format=self.name, source=source.rel)
        builder = Builder(session)
        last = None
        try:
            for line, event in iter_objects(path, session.problems, source.label(path), session.records, LINE_KINDS):
                builder.add(line, event)
                last = event.get("timestamp")
        except OSError as exc:
            session.warn("warning", f"unreadable ({exc})")
        session.ended_at = parse_time(last)
        for child in builder.finish():
            child.parent_id = session.id
            task = builder.calls.get(child.id.rpartition("/")[2])
            described = task.arguments.get("description") if task is not None and isinstance(task.arguments, dict) else None
            child.title = (described if isinstance(described, str) and described else None) \
                or first_request(user_prompts(child.steps)) or f"Subagent {child.id.rpartition('/')[2]}"
            stamps = [step.timestamp for step in child.steps if step.timestamp]
            child.started_at, child.ended_at = (stamps[0], stamps[-1]) if stamps else (None, None)
            child.number_steps()
            session.children.append(child)
        session.title = first_request(user_prompts(session.steps)) or session.id
        session.number_steps()
        return [session]


READER = CopilotReader()
