"""Kimi CLI (and Kimi Code, which writes the same wire): `~/.kimi/sessions/<md5 of the work
dir>/<session id>/` ($KIMI_SHARE_DIR moves ~/.kimi), holding `wire.jsonl` (every event the
agent sent its UI: wire.py reads it), `context.jsonl` (the model's message history, which
compaction and checkpoints rewrite), `state.json` and `subagents/<id>/` (a subagent's own
files). The wire is read; the session's other files are claimed with it. A folder holding only
a context.jsonl is read from that: its messages are OpenAI's shape, with its own bookkeeping
lines (`_system_prompt`, `_checkpoint`, `_usage`: the context's size, not a response's).
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from replay_site.model import Session, Step, ToolCall
from replay_site.readers import FileReader, SessionSource
from replay_site.readers.fields import first_request, mapping, mark_unanswered, string, user_prompts
from replay_site.readers.fields import text as as_text
from replay_site.readers.files import Head, moved_folder, plain_name
from replay_site.readers.jsonl import LineKinds, iter_objects
from replay_site.readers.kimi.wire import LINE_KINDS, Builder, message_kind, user_text
from replay_site.readers.timestamps import parse_time

WIRE, CONTEXT = "wire.jsonl", "context.jsonl"
CONTEXT_KINDS = LineKinds(not_shown=frozenset({"_system_prompt", "_checkpoint", "_usage"}),
                          name=lambda line: line.get("role") if isinstance(line.get("role"), str) else None)


def _is_record(value: Any) -> bool:
    message = mapping(mapping(value).get("message"))
    return isinstance(mapping(value).get("timestamp"), (int, float)) and isinstance(message.get("type"), str) \
        and isinstance(message.get("payload"), dict) and "type" not in value


def looks_like_wire(head: Head) -> bool:
    objects = head.objects(6)
    if not objects:
        return False
    first = objects[0]
    if first.get("type") == "metadata" and isinstance(first.get("protocol_version"), str):
        return all(map(_is_record, objects[1:]))
    return all(map(_is_record, objects))


class KimiReader(FileReader):
    name = "kimi"
    label = "Kimi CLI"
    env_vars = ("KIMI_SHARE_DIR",)

    def default_dirs(self) -> list[Path]:
        return [moved_folder("KIMI_SHARE_DIR", Path.home() / ".kimi") / "sessions"]

    def detect(self, path: Path, head: Head) -> str | None:
        name = plain_name(path)
        if name.suffix != ".jsonl" and not head.named:
            return None
        if looks_like_wire(head):
            return "wire"
        first = head.first_object()
        if name.name == CONTEXT and first is not None and first.get("role") in ("_system_prompt", "user", "_checkpoint"):
            return "context"
        return None

    def group(self, found: dict[Path, str], root: Path) -> Iterator[SessionSource]:
        """A session folder's wire (else its context) with its other files; a subagent's files
        in `subagents/` belong to the session whose wire holds its events."""
        folders: dict[Path, dict[str, Path]] = {}
        for path, kind in found.items():
            folders.setdefault(path.parent, {})[kind] = path
        sessions = {folder for folder in folders if "subagents" not in folder.relative_to(root).parts[:-1]} \
            if root.is_dir() else set(folders)
        for folder in sorted(sessions):
            files = folders[folder]
            main = files.get("wire") or files["context"]
            related = [path for path in files.values() if path != main]
            related += sorted(path for other, kinds in folders.items() if other != folder and other.is_relative_to(folder)
                              for path in kinds.values())
            yield SessionSource(self.name, main, root, tuple(sorted(set(related))))

    def read_sessions(self, source: SessionSource) -> list[Session]:
        path = source.path
        session = Session(id=path.parent.name if plain_name(path).name in (WIRE, CONTEXT) else plain_name(path).stem,
                          format=self.name, source=source.rel)
        for related in source.related:  # read with the wire: accounted for as files, not lines
            session.count_record(f"file {plain_name(related).name}", "not_shown")
        if plain_name(path).name == CONTEXT:
            _read_context(session, path, source)
        else:
            _read_wire(session, path, source)
        session.title = first_request(user_prompts(session.steps)) or session.id
        session.number_steps()
        return [session]


READER = KimiReader()


def _read_wire(session: Session, path: Path, source: SessionSource) -> None:
    builder = Builder(session)
    try:
        for line, record in iter_objects(path, session.problems, source.label(path), session.records, LINE_KINDS):
            kind = message_kind(record)
            if kind == "metadata":
                session.agent_version = f"wire protocol {as_text(record.get('protocol_version'))}"
                continue
            message = mapping(record.get("message"))
            moment = parse_time(record.get("timestamp"))
            session.started_at = session.started_at or moment
            session.ended_at = moment or session.ended_at
            builder.add(line, kind or "(no type)", mapping(message.get("payload")), record.get("timestamp"))
    except OSError as exc:
        session.warn("warning", f"unreadable ({exc})")
    session.children.extend(builder.finish())
    for child in session.walk():
        stamps = [step.timestamp for step in child.steps if step.timestamp]
        if child is not session and stamps:
            child.started_at, child.ended_at = stamps[0], stamps[-1]
    for step in session.steps:  # a subagent is titled by the task that started it
        for call in step.tool_calls:
            child = next((each for each in session.children if each.id == call.child_session_id), None)
            described = call.arguments.get("description") if isinstance(call.arguments, dict) else None
            if child is not None and isinstance(described, str) and described:
                child.title = described


def _read_context(session: Session, path: Path, source: SessionSource) -> None:
    calls: dict[str, ToolCall] = {}
    answered: set[int] = set()
    for line, message in iter_objects(path, session.problems, source.label(path), session.records, CONTEXT_KINDS):
        role = message.get("role") if isinstance(message.get("role"), str) else None
        if role in CONTEXT_KINDS.not_shown:
            continue
        if role == "user":
            text, images = user_text(message.get("content"))
            session.steps.append(Step("user", text=text, images=images))
        elif role == "assistant":
            content = message.get("content")
            step = Step("assistant", text=user_text(content)[0],
                        thinking="".join(as_text(mapping(part).get("think")) for part in content
                                         if mapping(part).get("type") == "think") if isinstance(content, list) else "")
            for raw in message.get("tool_calls") if isinstance(message.get("tool_calls"), list) else []:
                function = mapping(mapping(raw).get("function"))
                call = ToolCall(as_text(function.get("name")) or "tool", id=string(mapping(raw).get("id")),
                                arguments=function.get("arguments") if isinstance(function.get("arguments"), str) else None)
                step.tool_calls.append(call)
                if call.id:
                    calls[call.id] = call
            session.steps.append(step)
        elif role == "tool":
            call = calls.get(message.get("tool_call_id")) if isinstance(message.get("tool_call_id"), str) else None
            if call is None:
                call = ToolCall("tool", id=string(message.get("tool_call_id")), orphan=True)
                session.steps.append(Step("context", title="Tool result without its call", tool_calls=[call]))
            answered.add(id(call))
            call.output = user_text(message.get("content"))[0]
        else:
            session.warn("unknown_event", f"unknown Kimi context role {role!r}", line)
            session.not_understood(CONTEXT_KINDS.kind(message))
    mark_unanswered(calls.values(), answered)
